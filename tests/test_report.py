import json

from mase.cli import main
from mase.report import find_training_logs, read_curves


def write_metrics(path):
    path.mkdir(parents=True)
    (path / "metrics.csv").write_text(
        "update,global_step,charts/episodic_score,losses/v_loss\n1,100,40.0,1.0\n2,200,60.5,0.5\n"
    )


def test_read_curves_keeps_chart_columns(tmp_path):
    write_metrics(tmp_path / "run")
    step, curves = read_curves(tmp_path / "run" / "metrics.csv")
    assert step == "global_step"
    assert curves == {"charts/episodic_score": [(100.0, 40.0), (200.0, 60.5)]}


def test_report_plots_learning_curves(tmp_path, capsys):
    write_metrics(tmp_path / "run")
    png = tmp_path / "curve.png"
    assert main(["report", str(tmp_path), "--plot", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert find_training_logs([tmp_path]) == [tmp_path / "run" / "metrics.csv"]


def test_report_without_anything_is_an_error(tmp_path, capsys):
    assert main(["report", str(tmp_path)]) == 1
    assert "no summary.json" in capsys.readouterr().err


def test_report_table_from_summary(tmp_path, capsys):
    summary = {
        "team": "t",
        "env_id": "e",
        "episodes": 1,
        "failed": 0,
        "counts": {},
        "metrics": {"score": {"mean": 90.0, "std": 0.0, "ci95": 0.0, "n": 1}},
    }
    (tmp_path / "summary.json").write_text(json.dumps(summary))
    assert main(["report", str(tmp_path)]) == 0
    assert "90.0 ± 0.0" in capsys.readouterr().out
