"""Hostile programs for :mod:`mase.sandbox`: each tries one route out of the sandbox.

``PROGRAMS`` maps a route's name to a program. Every program starts with :data:`PRELUDE`,
which gives it ``F`` (its facts: the paths, ports, pids and names of the test process's bait,
``tests/test_sandbox_hostile.py``), ``attempt(label, fn)`` (run one try, print what it got or
the error's name) and ``unhook()``, the audit's route past the audit hook: find the hook through
``gc`` and turn its ``__call__`` into a no-op, and re-import ``_posixsubprocess`` to get the
real ``fork_exec`` back. A program prints whatever it obtained; the test judges it by what
happened outside the child (files, listeners, signals, processes, canaries), never by the
sandbox's verdict.

``FORKS`` names the programs that start processes in bulk (a fork bomb), which run only where
the seccomp filter is on: where the test runs as root the kernel does not apply
``RLIMIT_NPROC``, and that filter is what stops them.
"""

PRELUDE = r"""
import ctypes, gc, os, signal, socket, sys, time
F = facts
def attempt(label, fn):
    try:
        got = fn()
        print(label, 'GOT', repr(got)[:3000])
    except BaseException as error:
        print(label, 'no:', type(error).__name__, str(error)[:200])
def unhook():
    for obj in gc.get_objects():
        if type(obj).__name__ == '_Guard':
            type(obj).__call__ = lambda self, event, args: None
            obj.folder = '/'
    sys.modules.pop('_posixsubprocess', None)
    import _posixsubprocess, subprocess
    subprocess._posixsubprocess = _posixsubprocess
def read(path, **kw):
    fd = os.open(path, os.O_RDONLY, **kw)
    try:
        return os.read(fd, 1 << 16)
    finally:
        os.close(fd)
def write(path, **kw):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644, **kw)
    os.write(fd, b'escaped ' + F['marker'].encode())
    os.close(fd)
    return 'wrote ' + str(path)
libc = None
def C():
    global libc
    libc = libc or ctypes.CDLL(None, use_errno=True)
    return libc
unhook() if F.get('unhook') else None
"""

_FILES = {
    "open-secret": "attempt('open', lambda: open(F['secret']).read())",
    "os-open-secret": "attempt('os.open', lambda: read(F['secret']))",
    "dir-fd-secret": (
        "d = os.open(F['outside'], os.O_RDONLY)\n"
        "attempt('dir_fd', lambda: read('secret.txt', dir_fd=d))"
    ),
    "open-passwd": "attempt('passwd', lambda: open('/etc/passwd').read())",
    "dir-fd-passwd": (
        "attempt('dir_fd passwd', lambda: read('etc/passwd', dir_fd=os.open('/', os.O_RDONLY)))"
    ),
    "dir-fd-readme": (
        "d = os.open(F['repo'], os.O_RDONLY)\n"
        "attempt('dir_fd readme', lambda: read('README.md', dir_fd=d))"
    ),
    "open-repo": "attempt('repo', lambda: open(F['repo'] + '/README.md').read())",
    "listdir-home": "attempt('home', lambda: os.listdir(F['home']))",
    "read-home": (
        "for name in ('.bashrc', '.profile', '.ssh/id_rsa', '.netrc'):\n"
        "    attempt(name, lambda: read(os.path.join(F['home'], name)))"
    ),
    "parent-environ": "attempt('environ', lambda: read(f\"/proc/{F['parent']}/environ\"))",
    "parent-environ-dir-fd": (
        "d = os.open('/proc', os.O_RDONLY)\n"
        "attempt('environ', lambda: read(f\"{F['parent']}/environ\", dir_fd=d))"
    ),
    "self-environ": "attempt('self', lambda: read('/proc/self/environ'))",
    "pid1-environ": "attempt('pid 1', lambda: read('/proc/1/environ'))",
    "every-environ": (
        "for pid in [p for p in os.listdir('/proc') if p.isdigit()]:\n"
        "    attempt(pid, lambda: read(f'/proc/{pid}/environ'))"
    ),
    "parent-mem": (
        "def peek():\n"
        "    fd = os.open(f\"/proc/{F['parent']}/mem\", os.O_RDONLY)\n"
        "    return os.pread(fd, 4096, F['secret_address'])\n"
        "attempt('mem', peek)"
    ),
    "parent-cmdline": "attempt('cmdline', lambda: read(f\"/proc/{F['parent']}/cmdline\"))",
    "proc-self-root": "attempt('root', lambda: read('/proc/self/root' + F['secret']))",
    "proc-1-root": "attempt('root 1', lambda: read('/proc/1/root' + F['secret']))",
    "proc-1-cwd": "attempt('cwd 1', lambda: os.listdir('/proc/1/cwd/'))",
    "proc-dotdot": "attempt('dotdot', lambda: read('/proc/self/cwd/../../..' + F['secret']))",
    "symlink-secret": (
        "os.symlink(F['secret'], 'link')\nattempt('symlink', lambda: open('link').read())"
    ),
    "symlink-dir-fd": (
        "d = os.open('.', os.O_RDONLY)\n"
        "os.symlink(F['outside'], 'out', dir_fd=d)\n"
        "attempt('symlink', lambda: read('out/secret.txt', dir_fd=d))\n"
        "attempt('symlink write', lambda: write('out/marker-link', dir_fd=d))"
    ),
    "hardlink-secret": (
        "attempt('link', lambda: os.link(F['secret'], 'hard'))\n"
        "attempt('read', lambda: open('hard').read())"
    ),
    "hardlink-passwd": (
        "attempt('link', lambda: os.link('/etc/passwd', 'pw'))\n"
        "attempt('read', lambda: open('pw').read())"
    ),
    "walk-root": (
        "found, system = [], ('proc', 'sys', 'usr', 'dev')\n"
        "for top, dirs, files in os.walk('/'):\n"
        "    dirs[:] = [d for d in dirs if not (top == '/' and d in system)\n"
        "               and not d.startswith(('python3', 'site-packages'))]\n"
        "    for name in files:\n"
        "        try:\n"
        "            if F['canary_file'].encode() in read(os.path.join(top, name)):\n"
        "                found.append(os.path.join(top, name))\n"
        "        except OSError:\n"
        "            pass\n"
        "print('found', found)"
    ),
    "write-outside": "attempt('write', lambda: write(F['outside'] + '/marker-open'))",
    "write-outside-dir-fd": (
        "d = os.open(F['outside'], os.O_RDONLY)\n"
        "attempt('dir_fd write', lambda: write('marker-dirfd', dir_fd=d))"
    ),
    "rename-outside": (
        "open('here', 'w').write('x')\n"
        "attempt('rename', lambda: os.rename('here', F['outside'] + '/marker-rename'))"
    ),
    "write-repo": "attempt('repo', lambda: write(F['repo_marker']))",
    "write-home": "attempt('home', lambda: write(F['home_marker']))",
    "write-host-tmp": "attempt('tmp', lambda: write(F['tmp_marker']))",
    "write-host-shm": (
        "attempt('shm', lambda: write('/dev/shm/' + os.path.basename(F['shm_marker'])))"
    ),
    "mkfifo-outside": "attempt('fifo', lambda: os.mkfifo(F['outside'] + '/marker-fifo'))",
    "mknod-outside": "attempt('mknod', lambda: os.mknod(F['outside'] + '/marker-node'))",
    "mknod-device": (
        "attempt('mknod', lambda: os.mknod('mem', 0o600 | 0o020000, os.makedev(1, 1)))\n"
        "attempt('read', lambda: read('mem'))"
    ),
    "chmod-secret": "attempt('chmod', lambda: os.chmod(F['secret'], 0o777))",
    "remove-secret": "attempt('remove', lambda: os.remove(F['secret']))",
}

_PROCESSES = {
    "os-system": "attempt('system', lambda: os.system(f\"touch {F['outside']}/marker-system\"))",
    "subprocess": (
        "import subprocess\n"
        "attempt('run', lambda: subprocess.run(['sh', '-c', f\"cat {F['secret']}; "
        "touch {F['outside']}/marker-sub\"], capture_output=True))"
    ),
    "posixsubprocess-reimport": (
        "sys.modules.pop('_posixsubprocess', None)\n"
        "import _posixsubprocess, subprocess\n"
        "subprocess._posixsubprocess = _posixsubprocess\n"
        "attempt('run', lambda: subprocess.run(['cat', F['secret']], capture_output=True))"
    ),
    "fork-exec-direct": (
        "import subprocess\n"
        "sys.modules.pop('_posixsubprocess', None)\n"
        "import _posixsubprocess\n"
        "attempt('popen', lambda: subprocess.Popen(['cat', F['secret']]).wait())"
    ),
    "fork-write": (
        "def go():\n"
        "    pid = os.fork()\n"
        "    if pid == 0:\n"
        "        try:\n"
        "            write(F['outside'] + '/marker-fork')\n"
        "        finally:\n"
        "            os._exit(0)\n"
        "    return os.waitpid(pid, 0)\n"
        "attempt('fork', go)"
    ),
    "posix-spawn": (
        "attempt('spawn', lambda: os.waitpid(os.posix_spawn('/bin/cat', ['cat', F['secret']], "
        "{}), 0))"
    ),
    "ctypes-system": "attempt('system', lambda: C().system(f\"cat {F['secret']}\".encode()))",
    "ctypes-fork": (
        "def go():\n"
        "    pid = C().fork()\n"
        "    if pid == 0:\n"
        "        argv = (ctypes.c_char_p * 3)(b'cat', F['secret'].encode(), None)\n"
        "        C().execv(b'/bin/cat', argv)\n"
        "        os._exit(0)\n"
        "    return pid, ctypes.get_errno()\n"
        "attempt('fork', go)"
    ),
    "ctypes-execve-syscall": (
        "argv = (ctypes.c_char_p * 3)(b'/bin/cat', F['secret'].encode(), None)\n"
        "attempt('execve', lambda: (C().syscall(59, b'/bin/cat', argv, None), ctypes.get_errno()))"
    ),
    "ctypes-unshare-user": (
        "attempt('unshare', lambda: (C().unshare(0x10000000), ctypes.get_errno()))\n"
        "attempt('read', lambda: read(F['secret']))"
    ),
    "ctypes-memory": ("attempt('string_at', lambda: ctypes.string_at(F['secret_address'], 64))"),
    "process-vm-readv": (
        "class Iov(ctypes.Structure):\n"
        "    _fields_ = [('base', ctypes.c_void_p), ('len', ctypes.c_size_t)]\n"
        "buf = ctypes.create_string_buffer(64)\n"
        "local, remote = Iov(ctypes.addressof(buf), 64), Iov(F['secret_address'], 64)\n"
        "attempt('readv', lambda: (C().process_vm_readv(F['parent'], ctypes.byref(local), 1, "
        "ctypes.byref(remote), 1, 0), buf.raw))"
    ),
    "ptrace-parent": (
        "attempt('ptrace', lambda: (C().ptrace(16, F['parent'], 0, 0), ctypes.get_errno()))"
    ),
    "multiprocessing": (
        "import multiprocessing as mp\n"
        "p = mp.get_context('fork').Process(target=write, args=(F['outside'] + '/marker-mp',))\n"
        "attempt('mp', lambda: (p.start(), p.join()))"
    ),
    "setsid-sleepers": (
        "for _ in range(25):\n"
        "    try:\n"
        "        if os.fork() == 0:\n"
        "            os.setsid()\n"
        "            if os.fork() == 0:\n"
        "                time.sleep(1.5)\n"
        "                try:\n"
        "                    write(F['outside'] + '/marker-late')\n"
        "                finally:\n"
        "                    os._exit(0)\n"
        "            os._exit(0)\n"
        "    except OSError as error:\n"
        "        print('fork', error)\n"
        "        break\n"
        "while True:\n"
        "    pass"
    ),
    "setsid-exec-sleepers": (
        "for _ in range(10):\n"
        "    try:\n"
        "        if os.fork() == 0:\n"
        "            os.setsid()\n"
        "            os.execv('/bin/sh', ['sh', '-c', f\"sleep 30; : {F['marker']}\"])\n"
        "    except OSError as error:\n"
        "        print('fork', error)\n"
        "        break\n"
        "while True:\n"
        "    pass"
    ),
    "daemon-after-exit": (
        "try:\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(1.5)\n"
        "            write(F['outside'] + '/marker-daemon')\n"
        "        os._exit(0)\n"
        "except OSError as error:\n"
        "    print('fork', error)\n"
        "print('main exits')"
    ),
}

_SIGNALS = {
    "kill-parent": "attempt('kill', lambda: os.kill(F['parent'], signal.SIGUSR1))",
    "killpg-parent": "attempt('killpg', lambda: os.killpg(F['pgid'], signal.SIGUSR1))",
    "kill-all": "attempt('kill -1', lambda: os.kill(-1, signal.SIGUSR2))",
    "kill-pid1": "attempt('kill 1', lambda: os.kill(1, signal.SIGKILL))\nprint('alive')",
    "ctypes-kill": "attempt('kill', lambda: (C().kill(F['parent'], 10), ctypes.get_errno()))",
    "pidfd-parent": (
        "attempt('pidfd', lambda: signal.pidfd_send_signal(os.pidfd_open(F['parent']), "
        "signal.SIGUSR1))"
    ),
    "sethostname": "attempt('hostname', lambda: socket.sethostname('escaped-' + F['marker'][:8]))",
}

_NETWORK = {
    "tcp4": "attempt('tcp', lambda: socket.create_connection(('127.0.0.1', F['port']), 1))",
    "tcp6": "attempt('tcp6', lambda: socket.create_connection(('::1', F['port6']), 1))",
    "tcp-hostname": (
        "attempt('name', lambda: socket.create_connection(('localhost', F['port']), 1))"
    ),
    "udp4": (
        "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        "attempt('udp', lambda: s.sendto(b'escaped', ('127.0.0.1', F['udp'])))"
    ),
    "unix-path": (
        "s = socket.socket(socket.AF_UNIX)\n"
        "attempt('unix', lambda: (s.connect(F['unix']), s.send(b'escaped')))"
    ),
    "unix-abstract": (
        "s = socket.socket(socket.AF_UNIX)\n"
        "attempt('abstract', lambda: (s.connect('\\0' + F['abstract']), s.send(b'escaped')))"
    ),
    "netlink-links": (
        "def links():\n"
        "    s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)\n"
        "    s.bind((0, 0))\n"
        "    import struct\n"
        "    s.send(struct.pack('=IHHII', 32, 18, 0x301, 1, 0) + bytes(16))\n"
        "    return s.recv(65536)\n"
        "attempt('netlink', links)\n"
        "attempt('if_nameindex', socket.if_nameindex)"
    ),
    "packet-sniff": (
        "attempt('packet', lambda: socket.socket(socket.AF_PACKET, socket.SOCK_RAW, 0x0300)"
        ".recv(65536))"
    ),
    "ctypes-socket": (
        "import struct\n"
        "def go():\n"
        "    fd = C().socket(2, 1, 0)\n"
        "    address = struct.pack('=HH4s8x', 2, socket.htons(F['port']), bytes([127, 0, 0, 1]))\n"
        "    return fd, C().connect(fd, address, 16), ctypes.get_errno()\n"
        "attempt('connect', go)"
    ),
    "inherited-fds": (
        "for fd in range(3, 64):\n"
        "    try:\n"
        "        os.write(fd, b'escaped')\n"
        "        print('wrote to', fd, os.readlink(f'/proc/self/fd/{fd}'))\n"
        "    except OSError:\n"
        "        pass"
    ),
}

_RESOURCES = {
    "fill-folder": (
        "n = 0\n"
        "try:\n"
        "    while n < 200:\n"
        "        open(f'fill{n}', 'wb').write(bytes(2**20 - 1))\n"
        "        n += 1\n"
        "except OSError as error:\n"
        "    print('stopped after', n, type(error).__name__)"
    ),
    "one-huge-file": "attempt('big', lambda: open('big', 'wb').write(bytes(50 * 2**20)))",
    "many-files": (
        "n = 0\n"
        "try:\n"
        "    while n < 20000:\n"
        "        open(f'f{n}', 'w').close()\n"
        "        n += 1\n"
        "except OSError as error:\n"
        "    print('stopped after', n, type(error).__name__)\n"
        "print(n)"
    ),
    "fill-shm": (
        "attempt('shm', lambda: [open(f'/dev/shm/f{i}', 'wb').write(bytes(2**20 - 1)) "
        "for i in range(50)])"
    ),
    "huge-stdout": "sys.stdout.write('x' * (10 * 2**20))",
    "huge-stderr": "sys.stderr.write('y' * (10 * 2**20))",
    "memory-bomb": "blocks = []\nwhile True:\n    blocks.append(bytearray(2**24))",
    "raise-limits": (
        "import resource\n"
        "for kind in (resource.RLIMIT_AS, resource.RLIMIT_CPU, resource.RLIMIT_NPROC):\n"
        "    attempt(kind, lambda: resource.setrlimit(kind, (resource.RLIM_INFINITY,) * 2))\n"
        "attempt('alloc', lambda: len(bytearray(2**30)))"
    ),
    "thread-bomb": (
        "import threading\n"
        "n = 0\n"
        "try:\n"
        "    while n < 5000:\n"
        "        threading.Thread(target=time.sleep, args=(5,), daemon=True).start()\n"
        "        n += 1\n"
        "except (RuntimeError, OSError) as error:\n"
        "    print('threads', n, type(error).__name__)"
    ),
    "fork-bomb": ("while True:\n    try:\n        os.fork()\n    except OSError:\n        pass"),
    "ctypes-fork-bomb": "while True:\n    C().fork()",
}

#: Route name -> program body (without :data:`PRELUDE`).
PROGRAMS: dict[str, str] = {**_FILES, **_PROCESSES, **_SIGNALS, **_NETWORK, **_RESOURCES}

#: Programs that start processes in bulk: run only with the seccomp filter on.
FORKS = frozenset(("fork-bomb", "ctypes-fork-bomb"))

#: Programs that loop until the time limit (they get a short one).
LOOPS = frozenset(("setsid-sleepers", "setsid-exec-sleepers", "memory-bomb", "fork-bomb",
                   "ctypes-fork-bomb", "thread-bomb"))  # fmt: skip
