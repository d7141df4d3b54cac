"""A stand-in for ``python -m llama_cpp.server`` in tests: the same options, an echo model.

It answers after ``STUB_DELAY`` seconds; ``STUB_FAIL`` makes it print a reason and exit, as a
server that cannot load its model does.
"""

import argparse
import os
import sys
import time

from mase.llm import OfflineServer


def main() -> None:
    parser = argparse.ArgumentParser()
    for name in ("--model", "--model_alias", "--host", "--port", "--n_ctx", "--n_threads",
                 "--verbose"):  # fmt: skip
        parser.add_argument(name)
    args = parser.parse_args()
    if os.environ.get("STUB_FAIL"):
        print(f"error loading model {args.model}: not a GGUF file", flush=True)
        sys.exit(3)
    delay = float(os.environ.get("STUB_DELAY", "0"))

    def model(messages):
        time.sleep(delay)
        return f"{args.model_alias} on port {args.port} with {args.n_threads} threads"

    server = OfflineServer(model, host=args.host, port=int(args.port), model=args.model_alias)
    server.start()
    while True:
        time.sleep(1)


if __name__ == "__main__":
    main()
