package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrReset is what Check (and Watch, for a stream missing at the start)
// wraps when a watched stream is not the incarnation its watcher started
// from: the bus was reset under it, and whatever it built from the stream
// must be built again.
var ErrReset = errors.New("bus reset")

// How a stream changed under its watcher; see ResetError.
const (
	// ResetMissing: the stream did not exist when Watch took the baseline.
	ResetMissing = "missing"
	// ResetDeleted: the stream existed at the baseline and is gone now.
	ResetDeleted = "deleted"
	// ResetRecreated: the stream has another creation time than at the
	// baseline: it was deleted and created again.
	ResetRecreated = "re-created"
	// ResetAppeared: the stream was missing at the baseline (MissingOK) and
	// exists now.
	ResetAppeared = "appeared"
	// ResetEmptied: the stream holds no messages while the watcher's
	// Emptied hook says it holds content from it.
	ResetEmptied = "emptied"
)

// ResetError names the stream that changed and how; it wraps ErrReset.
type ResetError struct {
	// Stream is the stream's name.
	Stream string
	// How is one of the Reset* constants.
	How string
}

// Error says which stream changed and how.
func (e *ResetError) Error() string {
	return fmt.Sprintf("%s: stream %s %s", ErrReset, e.Stream, e.How)
}

// Unwrap returns ErrReset.
func (e *ResetError) Unwrap() error { return ErrReset }

// Incarnation tells the incarnation of streams (a KV bucket's or object
// store's stream included) its watcher started from from later ones. One
// incarnation of a stream is told from the next by its creation time.
//
// Every Watch and Check asks the server: one STREAM.INFO request per stream,
// whose answer is the CachedInfo of the handle js.Stream returns. No answer is
// kept between two calls: a kept one cannot see a deletion, and a check
// called at a reconnect must have the server's word. A second request
// (Stream.Info) would only ask the same again.
//
// An Incarnation does not change after Watch; Check may be called from
// several goroutines if the Emptied hooks may.
type Incarnation struct {
	js        jetstream.JetStream
	names     []string
	created   map[string]time.Time // no entry: missing at the baseline
	missingOK bool
	emptied   map[string]func() bool
}

// WatchOption changes what Watch and Check treat as a reset.
type WatchOption func(*Incarnation)

// MissingOK lets Watch start while a stream is missing; the stream appearing
// later is then a reset (ResetAppeared), because what the watcher built
// without it is not what the stream holds. Without it a missing stream makes
// Watch return a ResetError (ResetMissing).
func MissingOK() WatchOption {
	return func(i *Incarnation) { i.missingOK = true }
}

// Emptied makes Check report stream emptied (ResetEmptied) when it holds no
// messages while held reports true: the watcher holds content that came
// from the stream, so the stream was purged under it.
func Emptied(stream string, held func() bool) WatchOption {
	return func(i *Incarnation) { i.emptied[stream] = held }
}

// Watch takes the baseline: the creation time of each named stream. It
// returns a ResetError when a stream is missing (unless MissingOK), and
// another error when the server could not be asked.
func Watch(ctx context.Context, js jetstream.JetStream, names []string, opts ...WatchOption) (*Incarnation, error) {
	i := &Incarnation{js: js, names: names, created: map[string]time.Time{}, emptied: map[string]func() bool{}}
	for _, o := range opts {
		o(i)
	}
	for _, name := range names {
		info, err := i.info(ctx, name)
		switch {
		case errors.Is(err, jetstream.ErrStreamNotFound):
			if !i.missingOK {
				return nil, &ResetError{Stream: name, How: ResetMissing}
			}
		case err != nil:
			return nil, err
		default:
			i.created[name] = info.Created
		}
	}
	return i, nil
}

// Baseline returns the creation time of each stream at the baseline; a
// stream missing then has none.
func (i *Incarnation) Baseline() map[string]time.Time {
	out := make(map[string]time.Time, len(i.created))
	for name, t := range i.created {
		out[name] = t
	}
	return out
}

// Check compares every stream with the baseline. It returns a ResetError
// for the first stream that changed; when none did but a stream could not
// be read (NATS down: no answer, not a reset), that error; nil otherwise.
func (i *Incarnation) Check(ctx context.Context) error {
	var unknown error
	for _, name := range i.names {
		err := i.check(ctx, name)
		if errors.Is(err, ErrReset) {
			return err
		}
		if unknown == nil {
			unknown = err
		}
	}
	return unknown
}

func (i *Incarnation) check(ctx context.Context, name string) error {
	info, err := i.info(ctx, name)
	base, had := i.created[name]
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound) && had:
		return &ResetError{Stream: name, How: ResetDeleted}
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return nil // still missing, as at the baseline
	case err != nil:
		return err
	case !had:
		return &ResetError{Stream: name, How: ResetAppeared}
	case !info.Created.Equal(base):
		return &ResetError{Stream: name, How: ResetRecreated}
	}
	if held := i.emptied[name]; held != nil && info.State.Msgs == 0 && held() {
		return &ResetError{Stream: name, How: ResetEmptied}
	}
	return nil
}

// info asks the server for a stream's info (see Incarnation).
func (i *Incarnation) info(ctx context.Context, name string) (*jetstream.StreamInfo, error) {
	s, err := i.js.Stream(ctx, name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("read stream %s: %w", name, err)
	}
	return s.CachedInfo(), nil
}
