# Sourced by the whole-process benchmarks (whole_process.sh, mpi_scaling.sh):
# the SMA-cross config they time, one definition.
#   sma_cross_config DATA FAST_RANGE SLOW_RANGE CONSTRAINT  (prints the YAML)
sma_cross_config() {
  cat <<YAML
data: $1
strategy:
  params:
    fast: {range: $2}
    slow: {range: $3}
  constraints: [$4]
  signals:
    f: sma(close, fast)
    s: sma(close, slow)
  position: where(f > s, 1, -1)
simulation: {fee_bps: 5}
sweep: {objective: {metric: sharpe}, top_k: 20}
output: {csv: false}
YAML
}
