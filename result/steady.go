package result

// BlockSustained is how one job (or one group's jobs summed) held up over a
// long run, from its per-second series: the first minute against the settled
// rate, the worst minute, and steady state as SNIA's PTS defines it and,
// when asked, as fio's ss= criterion does. Rates are IOPS, read and write
// together.
type BlockSustained struct {
	// Name is the job's (or, for a group, its jobs' names joined); Job
	// indexes Block.Jobs, or is -1 for a group, which Group then indexes
	// in Block.Groups.
	Name    string `json:"name"`
	Job     int    `json:"job"`
	Group   int    `json:"group,omitempty"`
	Samples int    `json:"samples"`
	// FirstMinuteIOPS is the mean of the first minute (of the whole run
	// when it was shorter: FirstMinuteS says how many seconds).
	FirstMinuteIOPS float64 `json:"first_minute_iops"`
	FirstMinuteS    int     `json:"first_minute_s"`
	// WorstMinuteIOPS is the lowest mean over any minute-long window,
	// starting WorstMinuteStartS seconds into the measurement.
	WorstMinuteIOPS   float64 `json:"worst_minute_iops"`
	WorstMinuteStartS int     `json:"worst_minute_start_s"`
	// SettledIOPS is the mean of the steady-state window when one was
	// found (Settled, SettledBy "snia" or "fio"), else of the last fifth
	// of the run (Settled false). The window is [SettleStartS,
	// SettleStartS+SettleS): SettleStartS is the time to settle.
	SettledIOPS  float64 `json:"settled_iops"`
	Settled      bool    `json:"settled"`
	SettledBy    string  `json:"settled_by,omitempty"`
	SettleStartS int     `json:"settle_start_s"`
	SettleS      int     `json:"settle_s"`
	// DropPct is how far the settled rate is below the first minute, in
	// percent of the first minute; negative when it rose.
	DropPct float64    `json:"drop_pct"`
	SNIA    SteadySNIA `json:"snia"`
	Fio     *SteadyFio `json:"fio,omitempty"`
	// StoppedAtSteady is true when --until-steady ended the run at steady
	// state, before its --runtime cap.
	StoppedAtSteady bool `json:"stopped_at_steady,omitempty"`
}

// SteadySNIA is the PTS steady-state test on per-round mean IOPS: a window
// of Window rounds whose range is within DataLimitPct of their average and
// whose best-fit line changes by no more than SlopeLimitPct of it.
type SteadySNIA struct {
	RoundS        int       `json:"round_s"`
	Window        int       `json:"window"`
	DataLimitPct  float64   `json:"data_limit_pct"`
	SlopeLimitPct float64   `json:"slope_limit_pct"`
	RoundsIOPS    []float64 `json:"rounds_iops"`
	Attained      bool      `json:"attained"`
	// WindowStartRound is the window's first round (0-based); -1 when the
	// run had fewer rounds than the window. Without Attained, the figures
	// are those of the last window.
	WindowStartRound  int     `json:"window_start_round"`
	AverageIOPS       float64 `json:"average_iops"`
	DataExcursionPct  float64 `json:"data_excursion_pct"`
	SlopeExcursionPct float64 `json:"slope_excursion_pct"`
	// Slope (IOPS per round) and Intercept are the best-fit line over the
	// window, x counted in rounds from its start.
	Slope     float64 `json:"slope"`
	Intercept float64 `json:"intercept"`
}

// SteadyFio is fio's ss= criterion on the per-second series, in the shape of
// fio's jobs[].steadystate object where the two overlap.
type SteadyFio struct {
	// SS is the criterion as fio prints it ("iops_slope:0.300000%").
	SS        string `json:"ss"`
	DurationS int    `json:"duration"`
	RampS     int    `json:"ramp"`
	Attained  bool   `json:"attained"`
	// StartS is the first second of the window that met it (or of the last
	// window); -1 when the run was shorter than ss_dur after ss_ramp.
	StartS int `json:"start_s"`
	// Criterion is the value compared with the limit (percent of the mean
	// for a % limit); MaxDeviation and Slope the raw figures.
	Criterion    float64 `json:"criterion"`
	MaxDeviation float64 `json:"max_deviation"`
	Slope        float64 `json:"slope"`
	IOPSMean     float64 `json:"iops_mean"`
	BWMean       float64 `json:"bw_mean"`
}
