package rowstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"k8s.io/apimachinery/pkg/runtime/schema"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// ErrClosed is returned by writes and Flush after the Store's context
// ended: nothing is written any more.
var ErrClosed = errors.New("rows store closed")

// Put writes row, with the declared attribute types of its Target's
// Profile (the JSON of a busv1.AttributeTypes, nil for none), unless the
// bus holds, or is being sent, the same content. It reports whether it sent
// a write; the write lands asynchronously (see OnFailure).
func (s *Store) Put(ctx context.Context, row busv1.Row, targetGeneration int64, types []byte) (bool, error) {
	buf := buffers.Get().(*bytes.Buffer)
	defer buffers.Put(buf)
	_, h, err := encodeRow(buf, &row, types)
	if err != nil {
		return false, err
	}
	key := row.Key()
	s.mu.Lock()
	same := s.holdsLocked(key, h)
	s.mu.Unlock()
	if same {
		return false, nil
	}
	data, err := encodeEntry(buf, targetGeneration, s.now().UTC(), types)
	if err != nil {
		return false, fmt.Errorf("encode row %s: %w", bus.RowKey(key), err)
	}
	if s.maxValue > 0 && len(data) > s.maxValue {
		return false, &TooLargeError{Bytes: len(data), Limit: s.maxValue}
	}
	w := write{msg: &nats.Msg{Subject: bus.RowPutSubject(key), Data: data}, hash: h,
		gvk:       schema.GroupVersionKind{Group: row.Group, Version: row.Version, Kind: row.Kind},
		namespace: row.Namespace, name: row.Name}
	sent, err := s.publish(ctx, key, w, func() bool { return !s.holdsLocked(key, h) })
	if err != nil {
		s.unsure(key, w.msg)
		return false, fmt.Errorf("put row %s: %w", bus.RowKey(key), err)
	}
	return sent, nil
}

// Delete removes the row of key, if the bus holds or is being sent one. It
// reports whether it sent a delete; a delete that fails is sent again until
// it lands or a later write of the key replaces it.
func (s *Store) Delete(ctx context.Context, key busv1.RowKey) (bool, error) {
	s.mu.Lock()
	present := s.presentLocked(key)
	s.mu.Unlock()
	if !present {
		return false, nil
	}
	w := write{msg: deleteMsg(key), del: true}
	sent, err := s.publish(ctx, key, w, func() bool { return s.presentLocked(key) })
	if err != nil {
		s.unsure(key, w.msg)
		return false, fmt.Errorf("delete row %s: %w", bus.RowKey(key), err)
	}
	return sent, nil
}

// deleteMsg is a KV delete of key, as jetstream.KeyValue.Delete sends it.
func deleteMsg(key busv1.RowKey) *nats.Msg {
	m := nats.NewMsg(bus.RowPutSubject(key))
	m.Header.Set(kvOperationHeader, kvOperationDelete)
	return m
}

// The header jetstream.KeyValue.Delete marks a delete with.
const (
	kvOperationHeader = "KV-Operation"
	kvOperationDelete = "DEL"
)

// publish registers w as the latest write of key and sends it, when needed
// (called with s.mu held) still says so once a window slot is free. It
// reports whether it sent w. On an error w may be registered but was not
// sent; the caller decides what the key holds.
func (s *Store) publish(ctx context.Context, key busv1.RowKey, w write, needed func() bool) (bool, error) {
	if err := s.acquire(ctx); err != nil {
		return false, err
	}
	s.pubMu.Lock()
	defer s.pubMu.Unlock()
	s.mu.Lock()
	if !needed() {
		s.mu.Unlock()
		<-s.slots
		return false, nil
	}
	s.countLocked(key, s.presentLocked(key), !w.del)
	s.pending[key] = w
	s.mu.Unlock()
	sent := time.Now()
	fut, err := s.pub.js.PublishMsgAsync(w.msg)
	if err != nil {
		<-s.slots
		return false, err
	}
	s.inflight <- flight{fut: fut, key: key, msg: w.msg, del: w.del, sent: sent}
	return true, nil
}

// acquire takes a window slot.
func (s *Store) acquire(ctx context.Context) error {
	if s.ctx.Err() != nil {
		return ErrClosed
	}
	select {
	case s.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-s.ctx.Done():
		return ErrClosed
	}
}

// unsure records that the write msg of key was not sent, or was sent with an
// unknown outcome, if it is still the key's latest: the bus may hold the
// row or not, and any later write of the key is sent.
func (s *Store) unsure(key busv1.RowKey, msg *nats.Msg) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if w, ok := s.pending[key]; ok && w.msg == msg {
		s.unsureLocked(key)
	}
}

func (s *Store) unsureLocked(key busv1.RowKey) {
	s.countLocked(key, s.presentLocked(key), true)
	delete(s.pending, key)
	s.known[key] = unknownHash
}
