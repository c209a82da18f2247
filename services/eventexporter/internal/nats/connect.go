package nats

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"kollect.dev/kollect/pkg/sink"
)

// ready returns the connection and the stream capturing the subject,
// connecting and provisioning on first use.
func (n *Sink) ready(ctx context.Context) (jetstream.JetStream, *nats.Conn, string, error) {
	js, nc, err := n.connect(ctx)
	if err != nil {
		return nil, nil, "", err
	}
	n.mu.Lock()
	stream := n.stream
	n.mu.Unlock()
	if stream != "" {
		return js, nc, stream, nil
	}
	ctx, cancel := n.bounded(ctx)
	defer cancel()
	if stream, err = n.resolveStream(ctx, js, n.set.ensure); err != nil {
		return nil, nil, "", err
	}
	n.mu.Lock()
	n.stream = stream
	n.mu.Unlock()
	return js, nc, stream, nil
}

// connect returns the sink's connection, connecting when it has none. A
// cancelled ctx returns at once; a connection that completes later is
// closed.
func (n *Sink) connect(ctx context.Context) (jetstream.JetStream, *nats.Conn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.nc != nil {
		return n.js, n.nc, nil
	}
	type result struct {
		nc  *nats.Conn
		err error
	}
	done := make(chan result, 1)
	go func() {
		nc, err := nats.Connect(n.set.url, n.opts...)
		done <- result{nc, err}
	}()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		go func() {
			if r := <-done; r.nc != nil {
				r.nc.Close()
			}
		}()
		return nil, nil, ctx.Err()
	}
	if r.err != nil {
		return nil, nil, fmt.Errorf("connect to %s: %w", n.set.url, classify(ctx, r.err))
	}
	js, err := jetstream.New(r.nc)
	if err != nil {
		r.nc.Close()
		return nil, nil, fmt.Errorf("connect to %s: %w", n.set.url, err)
	}
	n.nc, n.js = r.nc, js
	return js, r.nc, nil
}

// resolveStream finds the stream that captures the subject. Without a
// stream name, it is whichever stream captures the subject and none is a
// permanent error. With one, a missing stream, or one that does not capture
// the subject, is created or extended when create is set and a permanent
// error otherwise.
func (n *Sink) resolveStream(ctx context.Context, js jetstream.JetStream, create bool) (string, error) {
	subject := n.set.subject
	if n.set.stream == "" {
		name, err := js.StreamNameBySubject(ctx, subject)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return "", sink.Permanent(fmt.Errorf("no JetStream stream captures subject %s: create one, or name one in spec.nats.stream to have it created", subject))
		}
		if err != nil {
			return "", fmt.Errorf("find the stream of subject %s: %w", subject, classify(ctx, err))
		}
		return name, nil
	}
	name := n.set.stream
	st, err := js.Stream(ctx, name)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound) && create:
		cfg := jetstream.StreamConfig{Name: name, Subjects: []string{subject}, Duplicates: n.window, Storage: jetstream.FileStorage}
		if _, err := js.CreateStream(ctx, cfg); err != nil {
			return "", fmt.Errorf("create stream %s: %w", name, classify(ctx, err))
		}
		return name, nil
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return "", sink.Permanent(fmt.Errorf("stream %s does not exist (provisioning mode existing)", name))
	case err != nil:
		return "", fmt.Errorf("read stream %s: %w", name, classify(ctx, err))
	}
	cfg := st.CachedInfo().Config
	if slices.ContainsFunc(cfg.Subjects, func(f string) bool { return captures(f, subject) }) {
		return name, nil
	}
	if !create {
		return "", sink.Permanent(fmt.Errorf("stream %s does not capture subject %s (provisioning mode existing)", name, subject))
	}
	cfg.Subjects = append(cfg.Subjects, subject)
	if _, err := js.UpdateStream(ctx, cfg); err != nil {
		return "", fmt.Errorf("add subject %s to stream %s: %w", subject, name, classify(ctx, err))
	}
	return name, nil
}
