package answer_test

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

// natsChildDir, when set in the environment, makes the test binary a NATS
// server storing there (TestMain): benchmarks that measure this process's
// heap run the bus in another process, so that its caches are not counted.
const natsChildDir = "KOLLECT_ANSWER_BENCH_NATS_DIR"

// natsURLLine starts the child's line that names its URL.
const natsURLLine = "nats-url: "

func TestMain(m *testing.M) {
	if dir := os.Getenv(natsChildDir); dir != "" {
		n, err := testenv.NewNATS(dir, -1)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(natsURLLine + n.URL)
		_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes it
		n.Stop()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// startChildNATS starts a NATS server in a child process (TestMain) and
// returns a JetStream context on it; it stops when b ends.
func startChildNATS(b *testing.B) jetstream.JetStream {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$") //nolint:gosec // the test binary itself
	cmd.Env = append(os.Environ(), natsChildDir+"="+filepath.Join(b.TempDir(), "nats"))
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = stdin.Close()
		_ = cmd.Wait()
	})
	var url string
	for sc := bufio.NewScanner(stdout); url == "" && sc.Scan(); {
		if u, ok := strings.CutPrefix(sc.Text(), natsURLLine); ok {
			url = u
		}
	}
	if url == "" {
		b.Fatal("the NATS child process named no URL")
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	nc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		b.Fatal(err)
	}
	return js
}

func benchRow(i, version int) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "workloads", Namespace: "team-a", Name: fmt.Sprintf("app-%05d", i),
		UID: fmt.Sprintf("uid-%05d", i), Group: "apps", Version: "v1", Kind: "Deployment",
		Attributes: map[string]any{"image": fmt.Sprintf("registry.example.com/app-%05d:%d", i, version), "replicas": float64(2)}}
}

// benchChanged is the row revision r (> 0) of the bench history changes:
// one row, spread over the inventory.
func benchChanged(r, rows int) int { return (r * 7919) % rows }

// publishBenchHistory publishes revisions revisions of a rows-row inventory
// inv on a provisioned bus, each changing one row (benchChanged) an hour
// after the last from start, stored as the aggregator stores them: rows in
// content-addressed chunks cut at snapshot.Boundary, a manifest per
// revision, and an event with the delta from the revision before. Only the
// changed chunk is encoded again per revision, so 1,000 revisions of 10,000
// rows take seconds.
func publishBenchHistory(ctx context.Context, b *testing.B, js jetstream.JetStream, inv busv1.NamespacedName, rows, revisions int, start time.Time) {
	b.Helper()
	w, err := history.NewWriter(ctx, js)
	if err != nil {
		b.Fatal(err)
	}
	cur := make([]busv1.Row, rows)
	for i := range cur {
		cur[i] = benchRow(i, 0)
	}
	snapshot.Sort(cur)
	// The chunks' row ranges never change: only attributes do, and a chunk
	// ends at a row chosen by its sort key.
	var ends []int
	chunkOf := make([]int, rows)
	for i := range cur {
		chunkOf[i] = len(ends)
		if snapshot.Boundary(snapshot.SortKey(&cur[i])) || i == rows-1 {
			ends = append(ends, i+1)
		}
	}
	chunks := make([]busv1.Chunk, len(ends))
	sums := make([][sha256.Size]byte, len(ends))
	encode := func(c int) {
		first := 0
		if c > 0 {
			first = ends[c-1]
		}
		var buf []byte
		for i := first; i < ends[c]; i++ {
			raw, err := snapshot.Canonical(&cur[i])
			if err != nil {
				b.Fatal(err)
			}
			if i > first {
				buf = append(buf, ',')
			}
			buf = append(buf, raw...)
		}
		sums[c] = sha256.Sum256(buf)
		chunks[c] = busv1.Chunk{Digest: hex.EncodeToString(sums[c][:]), Rows: ends[c] - first, Bytes: int64(len(buf))}
		if _, err := w.PutChunk(ctx, chunks[c], buf); err != nil {
			b.Fatal(err)
		}
	}
	for c := range ends {
		encode(c)
	}
	var last *busv1.SnapshotEvent
	for r := range revisions {
		var changed busv1.Row
		if r > 0 {
			i := benchChanged(r, rows) // app-%05d sorts by number: row i is at index i
			cur[i] = benchRow(i, r)
			changed = cur[i]
			encode(chunkOf[i])
		}
		m := &busv1.Manifest{Inventory: inv, Checksum: snapshot.ChecksumOfDigests(sums), ItemCount: rows, Chunks: slices.Clone(chunks)}
		for _, c := range chunks {
			m.Bytes += c.Bytes
		}
		ref, _, err := w.PutAddressed(ctx, bus.ManifestObjectName, m.AppendJSON(nil))
		if err != nil {
			b.Fatal(err)
		}
		ev := &busv1.SnapshotEvent{Inventory: inv, Revision: uint64(r + 1), Generation: 1, Checksum: m.Checksum, ItemCount: rows,
			CreatedAt: start.Add(time.Duration(r) * time.Hour), Reason: busv1.ReasonChange, ManifestRef: ref, Bindings: []busv1.Binding{}}
		if last != nil {
			ev.PreviousChecksum = last.Checksum
			ev.Delta = &busv1.Delta{BaseRevision: last.Revision, BaseChecksum: last.Checksum, Upserts: []busv1.Row{changed}, Deletes: []busv1.RowKey{}}
		}
		data, err := json.Marshal(ev)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := js.PublishMsg(ctx, &nats.Msg{Subject: bus.SnapshotSubject(inv), Data: data}); err != nil {
			b.Fatal(err)
		}
		last = ev
	}
}
