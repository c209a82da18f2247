package postgres_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// cpuMeter adds up the CPU time of this process and of the sink's
// PostgreSQL backends, so that a benchmark on a machine shared with other
// work can report what an export costs rather than how long it waited. As
// the sink's pgx tracer (postgres.Backend.Tracer) it also attributes both to
// the export's phases: each statement, and the client's work between
// statements.
type cpuMeter struct {
	conn           *pgx.Conn
	client, server time.Duration
	c0, s0         time.Duration

	mu     sync.Mutex
	on     bool
	phases map[string]*phaseCPU
}

// phaseCPU is the CPU one phase used over the measured operations.
type phaseCPU struct{ client, server time.Duration }

func (m *cpuMeter) start(b *testing.B) {
	b.StopTimer()
	m.c0, m.s0 = selfCPU(b), m.backendCPU(b)
	m.mu.Lock()
	m.on = true
	m.mu.Unlock()
	b.StartTimer()
}

func (m *cpuMeter) stop(b *testing.B) {
	b.StopTimer()
	m.mu.Lock()
	m.on = false
	m.mu.Unlock()
	m.client += selfCPU(b) - m.c0
	m.server += m.backendCPU(b) - m.s0
	b.StartTimer()
}

// report adds client and server CPU per op, per phase, and the throughput
// the CPU time allows when client and server each have a core to
// themselves.
func (m *cpuMeter) report(b *testing.B, rowsPerOp int) {
	n := float64(b.N)
	ms := func(d time.Duration) float64 { return d.Seconds() * 1000 / n }
	b.ReportMetric(ms(m.client), "client-cpu-ms/op")
	b.ReportMetric(ms(m.server), "server-cpu-ms/op")
	busiest := max(m.client, m.server).Seconds() / n
	if rowsPerOp > 0 && busiest > 0 {
		b.ReportMetric(float64(rowsPerOp)/busiest, "rows/cpu-s")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var inStatements time.Duration
	for _, name := range slices.Sorted(maps.Keys(m.phases)) {
		p := m.phases[name]
		inStatements += p.client
		b.ReportMetric(ms(p.client), name+"-client-ms/op")
		b.ReportMetric(ms(p.server), name+"-server-ms/op")
	}
	// The client's own work outside statements: snapshot checks, sorting,
	// building parameters.
	b.ReportMetric(ms(m.client-inStatements), "between-client-ms/op")
}

// statementStart is the CPU clock when a statement was sent.
type statementStart struct {
	phase          string
	client, server time.Duration
}

type startKey struct{}

func (m *cpuMeter) begin(ctx context.Context, conn *pgx.Conn, phase string) context.Context {
	m.mu.Lock()
	on := m.on
	m.mu.Unlock()
	if !on {
		return ctx
	}
	// The backend first, this process last: the meter's own reading stays
	// outside the statement's client time.
	server := procCPU(conn.PgConn().PID())
	return context.WithValue(ctx, startKey{}, statementStart{phase: phase, server: server, client: rusageCPU()})
}

func (m *cpuMeter) end(ctx context.Context, conn *pgx.Conn) {
	st, ok := ctx.Value(startKey{}).(statementStart)
	if !ok {
		return
	}
	client := rusageCPU() - st.client
	server := procCPU(conn.PgConn().PID()) - st.server
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.phases == nil {
		m.phases = map[string]*phaseCPU{}
	}
	p := m.phases[st.phase]
	if p == nil {
		p = &phaseCPU{}
		m.phases[st.phase] = p
	}
	p.client += client
	p.server += server
}

// TraceQueryStart implements pgx.QueryTracer.
func (m *cpuMeter) TraceQueryStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceQueryStartData) context.Context {
	return m.begin(ctx, conn, phaseOf(data.SQL))
}

// TraceQueryEnd implements pgx.QueryTracer.
func (m *cpuMeter) TraceQueryEnd(ctx context.Context, conn *pgx.Conn, _ pgx.TraceQueryEndData) {
	m.end(ctx, conn)
}

// TraceCopyFromStart implements pgx.CopyFromTracer.
func (m *cpuMeter) TraceCopyFromStart(ctx context.Context, conn *pgx.Conn, data pgx.TraceCopyFromStartData) context.Context {
	phase := "copy"
	if strings.Contains(data.TableName.Sanitize(), "staging") {
		phase = "copy_staging"
	}
	return m.begin(ctx, conn, phase)
}

// TraceCopyFromEnd implements pgx.CopyFromTracer.
func (m *cpuMeter) TraceCopyFromEnd(ctx context.Context, conn *pgx.Conn, _ pgx.TraceCopyFromEndData) {
	m.end(ctx, conn)
}

// TraceBatchStart implements pgx.BatchTracer.
func (m *cpuMeter) TraceBatchStart(ctx context.Context, conn *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return m.begin(ctx, conn, "batch")
}

// TraceBatchQuery implements pgx.BatchTracer.
func (m *cpuMeter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

// TraceBatchEnd implements pgx.BatchTracer.
func (m *cpuMeter) TraceBatchEnd(ctx context.Context, conn *pgx.Conn, _ pgx.TraceBatchEndData) {
	m.end(ctx, conn)
}

// phaseOf names a statement's phase: its first word (the second of a
// select), with the state table's statements and the staging table's
// creation named apart.
func phaseOf(sql string) string {
	s := strings.ToLower(strings.TrimSpace(sql))
	word, rest, _ := strings.Cut(s, " ")
	if word == "select" { // select exists (...), select count(*)
		word, _, _ = strings.Cut(rest, " ")
		word, _, _ = strings.Cut(word, "(")
	}
	first, _, _ := strings.Cut(s, "\n")
	switch {
	case strings.Contains(first, `_state"`):
		return word + "_state"
	case word == "create" && strings.Contains(first, "staging"):
		return word + "_staging"
	}
	return word
}

func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func rusageCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// procCPU is the CPU time of process pid in nanoseconds (schedstat), else
// in clock ticks of 10ms (stat); zero when the process ended.
func procCPU(pid uint32) time.Duration {
	if b, err := os.ReadFile(fmt.Sprintf("/proc/%d/schedstat", pid)); err == nil {
		f, _, _ := strings.Cut(string(b), " ")
		if ns, err := strconv.ParseInt(f, 10, 64); err == nil {
			return time.Duration(ns)
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

// backendCPU is the CPU time of the exporter's backends of the database.
func (m *cpuMeter) backendCPU(b *testing.B) time.Duration {
	rows, err := m.conn.Query(context.Background(), `SELECT pid FROM pg_stat_activity
WHERE application_name = 'kollect-database-exporter' AND datname = current_database()`)
	if err != nil {
		b.Fatal(err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatal(err)
	}
	var total time.Duration
	for _, pid := range pids {
		total += procCPU(uint32(pid))
	}
	return total
}
