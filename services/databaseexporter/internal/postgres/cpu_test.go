package postgres_test

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// cpuMeter adds up the CPU time of this process and of the sink's
// PostgreSQL backends, so that a benchmark on a machine shared with other
// work can report what an export costs rather than how long it waited.
type cpuMeter struct {
	conn           *pgx.Conn
	client, server time.Duration
	c0, s0         time.Duration
}

func (m *cpuMeter) start(b *testing.B) {
	b.StopTimer()
	m.c0, m.s0 = selfCPU(b), m.backendCPU(b)
	b.StartTimer()
}

func (m *cpuMeter) stop(b *testing.B) {
	b.StopTimer()
	m.client += selfCPU(b) - m.c0
	m.server += m.backendCPU(b) - m.s0
	b.StartTimer()
}

// report adds client and server CPU per op and the throughput the CPU
// time allows when client and server each have a core to themselves.
func (m *cpuMeter) report(b *testing.B, rowsPerOp int) {
	n := float64(b.N)
	b.ReportMetric(m.client.Seconds()*1000/n, "client-cpu-ms/op")
	b.ReportMetric(m.server.Seconds()*1000/n, "server-cpu-ms/op")
	busiest := max(m.client, m.server).Seconds() / n
	if rowsPerOp > 0 && busiest > 0 {
		b.ReportMetric(float64(rowsPerOp)/busiest, "rows/cpu-s")
	}
}

func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// backendCPU is the CPU time of the exporter's backends of the database,
// from /proc (clock ticks of 10ms).
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
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			continue // the backend ended
		}
		f := strings.Fields(string(stat[strings.LastIndexByte(string(stat), ')')+2:]))
		utime, _ := strconv.ParseInt(f[11], 10, 64)
		stime, _ := strconv.ParseInt(f[12], 10, 64)
		total += time.Duration(utime+stime) * 10 * time.Millisecond
	}
	return total
}
