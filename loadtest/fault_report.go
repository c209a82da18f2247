package loadtest

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// FaultOutcome is one run of one fault.
type FaultOutcome struct {
	Fault string `json:"fault"`
	Kind  string `json:"kind"`
	Run   int    `json:"run"`
	// Fired is false when an armed crash point was not reached in time.
	Fired bool `json:"fired"`
	// Healed is true when the sinks equalled the cluster (rows, content,
	// export state) within the heal timeout; HealSeconds is from the fault.
	Healed      bool    `json:"healed"`
	HealSeconds float64 `json:"healSeconds"`
	// Revisions that went backwards (sampled, and in the Git history),
	// Git commits repeating a revision, a PostgreSQL table seen empty.
	PGBackwards   int  `json:"pgBackwards"`
	GitBackwards  int  `json:"gitBackwards"`
	GitDuplicates int  `json:"gitDuplicates"`
	PGEmptied     bool `json:"pgEmptied"`
	// KafkaRepeated are Kafka row records of the run that repeat a (key,
	// revision) already in the topic: at-least-once delivery, harmless
	// to a compacted view, reported but not a failure (docs/sinks/kafka.md).
	KafkaRepeated int `json:"kafkaRepeated"`
	// DeadLetters written during the run.
	DeadLetters uint64 `json:"deadLetters"`
	// Unexpected are services that exited when nothing killed them.
	Unexpected []string `json:"unexpected,omitempty"`
	Problems   []string `json:"problems,omitempty"`
}

// OK reports whether the run healed and broke no invariant.
func (o FaultOutcome) OK() bool {
	return o.Fired && o.Healed && o.PGBackwards == 0 && o.GitBackwards == 0 && o.GitDuplicates == 0 &&
		!o.PGEmptied && o.DeadLetters == 0 && len(o.Unexpected) == 0 && len(o.Problems) == 0
}

func (o FaultOutcome) summary() string {
	if o.OK() {
		return fmt.Sprintf("ok, healed in %.1fs", o.HealSeconds)
	}
	var p []string
	if !o.Fired {
		p = append(p, "crash point not reached")
	}
	if o.PGBackwards+o.GitBackwards > 0 {
		p = append(p, fmt.Sprintf("revisions backwards: PostgreSQL %d, Git %d", o.PGBackwards, o.GitBackwards))
	}
	if o.GitDuplicates > 0 {
		p = append(p, fmt.Sprintf("%d duplicate Git commits", o.GitDuplicates))
	}
	if o.PGEmptied {
		p = append(p, "PostgreSQL table seen empty")
	}
	if o.DeadLetters > 0 {
		p = append(p, fmt.Sprintf("%d dead letters", o.DeadLetters))
	}
	p = append(p, o.Unexpected...)
	p = append(p, o.Problems...)
	return "FAILED: " + strings.Join(p, "; ")
}

// FaultReport is a fault-injection run's result.
type FaultReport struct {
	Date                  string         `json:"date"`
	Machine               Machine        `json:"machine"`
	Config                FaultConfig    `json:"config"`
	LoadBefore, LoadAfter string         `json:"-"`
	Seconds               float64        `json:"seconds"`
	Outcomes              []FaultOutcome `json:"outcomes"`
}

// Failed returns the runs that did not heal or broke an invariant.
func (r *FaultReport) Failed() []FaultOutcome {
	var out []FaultOutcome
	for _, o := range r.Outcomes {
		if !o.OK() {
			out = append(out, o)
		}
	}
	return out
}

// WriteMarkdown writes the report: per fault the runs, faults injected,
// rows lost or duplicated, runs healed and the time to heal; then every
// failed run.
func (r *FaultReport) WriteMarkdown(w io.Writer) {
	fmt.Fprintf(w, "# Fault injection, %s\n\n", r.Date)
	fmt.Fprintf(w, "%d objects in %d namespaces; %d run(s) per fault; changes at %.0f/s for %v a run; heal timeout %v; "+
		"%d CPUs, load average %s before and %s after; %.0f s in all.\n\n",
		r.Config.Objects, r.Config.Namespaces, r.Config.Runs, r.Config.ChangeRate, r.Config.Workload, r.Config.HealTimeout,
		r.Machine.CPUs, r.LoadBefore, r.LoadAfter, r.Seconds)
	fmt.Fprintln(w, "| fault | kind | runs | fired | healed | not healed | revisions backwards | duplicate commits | table emptied | dead letters | unexpected exits | Kafka records repeated | heal p50 s | heal max s |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
	var order []string
	by := map[string][]FaultOutcome{}
	for _, o := range r.Outcomes {
		if _, ok := by[o.Fault]; !ok {
			order = append(order, o.Fault)
		}
		by[o.Fault] = append(by[o.Fault], o)
	}
	for _, name := range order {
		os := by[name]
		var fired, healed, back, dup, empty, unexp, repeated int
		var dead uint64
		var heal []float64
		for _, o := range os {
			fired += b2i(o.Fired)
			healed += b2i(o.Healed)
			back += o.PGBackwards + o.GitBackwards
			dup += o.GitDuplicates
			empty += b2i(o.PGEmptied)
			dead += o.DeadLetters
			unexp += len(o.Unexpected)
			repeated += o.KafkaRepeated
			if o.Healed {
				heal = append(heal, o.HealSeconds)
			}
		}
		sort.Float64s(heal)
		p50, mx := "-", "-"
		if len(heal) > 0 {
			p50, mx = fmt.Sprintf("%.1f", heal[len(heal)/2]), fmt.Sprintf("%.1f", heal[len(heal)-1])
		}
		fmt.Fprintf(w, "| %s | %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %s | %s |\n",
			name, os[0].Kind, len(os), fired, healed, len(os)-healed, back, dup, empty, dead, unexp, repeated, p50, mx)
	}
	failed := r.Failed()
	fmt.Fprintf(w, "\n%d of %d runs failed.\n", len(failed), len(r.Outcomes))
	for _, o := range failed {
		fmt.Fprintf(w, "\n- %s, run %d: %s\n", o.Fault, o.Run, o.summary())
	}
	fmt.Fprintf(w, "\nGenerated by `make faults` (loadtest/cmd/faults) at %s.\n", time.Now().UTC().Format(time.RFC3339))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
