package tenancy

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// tap records every message published on the bus while the suite runs
// (a subscription on ">": KV puts, object store chunks, status reports,
// snapshot events, dead letters, deliveries), so that a canary that was on
// the bus only for a moment (a row put, then deleted) is still found.
type tap struct {
	nc   *nats.Conn
	path string
	mu   sync.Mutex
	f    *os.File
	w    *bufio.Writer
}

// startTap subscribes to every subject and appends each message (subject,
// headers, data) to the file at path.
func startTap(url, path string) (*tap, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("create bus tap file: %w", err)
	}
	nc, err := nats.Connect(url, nats.Name("tenancy-tap"), nats.MaxReconnects(-1))
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("connect the bus tap: %w", err)
	}
	tp := &tap{nc: nc, path: path, f: f, w: bufio.NewWriter(f)}
	sub, err := nc.Subscribe(">", tp.record)
	if err == nil {
		err = sub.SetPendingLimits(-1, -1)
	}
	if err == nil {
		err = nc.Flush()
	}
	if err != nil {
		_ = tp.close()
		return nil, fmt.Errorf("subscribe the bus tap: %w", err)
	}
	return tp, nil
}

func (tp *tap) record(m *nats.Msg) {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	fmt.Fprintf(tp.w, "\n%s %v\n", m.Subject, m.Header)
	_, _ = tp.w.Write(m.Data)
}

// contents returns everything the tap recorded so far.
func (tp *tap) contents() ([]byte, error) {
	_ = tp.nc.Flush()
	tp.mu.Lock()
	err := tp.w.Flush()
	tp.mu.Unlock()
	if err != nil {
		return nil, fmt.Errorf("flush the bus tap: %w", err)
	}
	return os.ReadFile(tp.path)
}

func (tp *tap) close() error {
	tp.nc.Close()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return errors.Join(tp.w.Flush(), tp.f.Close())
}

// streamContents reads every message still stored in every JetStream
// stream (so every KV bucket, the object store and the dead letters too),
// keyed by stream name.
func streamContents(ctx context.Context, js jetstream.JetStream) (map[string][]byte, error) {
	out := map[string][]byte{}
	lister := js.ListStreams(ctx)
	for info := range lister.Info() {
		name := info.Config.Name
		s, err := js.Stream(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("open stream %s: %w", name, err)
		}
		var b bytes.Buffer
		for seq := info.State.FirstSeq; seq > 0 && seq <= info.State.LastSeq; seq++ {
			m, err := s.GetMsg(ctx, seq)
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			if err != nil {
				return nil, fmt.Errorf("read message %d of stream %s: %w", seq, name, err)
			}
			fmt.Fprintf(&b, "\n%s %v\n", m.Subject, m.Header)
			b.Write(m.Data)
		}
		out[name] = b.Bytes()
	}
	if err := lister.Err(); err != nil {
		return nil, fmt.Errorf("list streams: %w", err)
	}
	return out, nil
}

// rowsOf returns the rows the collector holds for Target ns/name.
func rowsOf(ctx context.Context, ns, name string) ([]busv1.Row, error) {
	kv, err := suite.bus.JS.KeyValue(ctx, bus.BucketRows)
	if err != nil {
		return nil, fmt.Errorf("open bucket %s: %w", bus.BucketRows, err)
	}
	keys, err := kv.ListKeysFiltered(ctx, bus.RowKeyFilter(ns, name))
	if err != nil {
		return nil, fmt.Errorf("list rows of %s/%s: %w", ns, name, err)
	}
	var rows []busv1.Row
	for key := range keys.Keys() {
		e, err := kv.Get(ctx, key)
		if errors.Is(err, jetstream.ErrKeyNotFound) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read row %s: %w", key, err)
		}
		var entry busv1.RowEntry
		if err := json.Unmarshal(e.Value(), &entry); err != nil {
			return nil, fmt.Errorf("decode row %s: %w", key, err)
		}
		rows = append(rows, entry.Row)
	}
	// The lister stops its watcher once it has sent every key; Stop then
	// answers "invalid subscription".
	return rows, nil
}
