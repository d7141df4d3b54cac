"""Reporting: summaries of records, tables of them, and learning curves.

:func:`summarize` (:mod:`.summary`) turns an evaluation's episode records into statistics
(``summary.json``): mean and standard deviation, the 95% interval of the mean that the metric's
kind calls for (Wilson for proportions, the percentile bootstrap for other measures), and the
interquartile mean with a stratified bootstrap interval (:mod:`mase.stats`). The table functions
(:mod:`.tables`) print summaries, with a paper's numbers beside them for a preset, intervals and
the probability of improvement between teams, in any of :data:`FORMATS`; :mod:`.curves` reads
and draws training logs.
"""

from mase.report.curves import (
    CURVE_LABELS,
    CURVE_PREFIXES,
    STEP_COLUMNS,
    curve_label,
    find_training_logs,
    plot_learning_curves,
    read_curves,
)
from mase.report.summary import USAGE_KEYS, summarize
from mase.report.tables import (
    DEFAULT_COLUMNS,
    FORMATS,
    SPREAD,
    TOM_TITLE,
    Table,
    belief_line,
    comparison_table,
    find_summaries,
    format_table,
    improvement_rows,
    interval_rows,
    load_records,
    load_summaries,
    mean_std,
    metric_values,
    render_tables,
    report_tables,
    results_rows,
    results_table,
    tom_rows,
    tom_table,
    usage_line,
)
from mase.stats import (
    Interval,
    Metric,
    improvement_interval,
    interquartile_mean,
    interval,
    iqm_interval,
    methods_line,
    probability_of_improvement,
    wilson_interval,
)

__all__ = [
    "CURVE_LABELS",
    "CURVE_PREFIXES",
    "DEFAULT_COLUMNS",
    "FORMATS",
    "SPREAD",
    "STEP_COLUMNS",
    "TOM_TITLE",
    "Interval",
    "Metric",
    "USAGE_KEYS",
    "Table",
    "belief_line",
    "comparison_table",
    "curve_label",
    "find_summaries",
    "find_training_logs",
    "format_table",
    "improvement_interval",
    "improvement_rows",
    "interquartile_mean",
    "interval",
    "interval_rows",
    "iqm_interval",
    "load_records",
    "load_summaries",
    "mean_std",
    "methods_line",
    "metric_values",
    "plot_learning_curves",
    "probability_of_improvement",
    "read_curves",
    "render_tables",
    "report_tables",
    "results_rows",
    "results_table",
    "summarize",
    "tom_rows",
    "tom_table",
    "usage_line",
    "wilson_interval",
]
