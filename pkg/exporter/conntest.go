package exporter

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"kollect.dev/kollect/pkg/app"

	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/sink"
)

// serveConnTests answers the family's connection-test requests in the
// family's queue group, so one replica answers each.
func (rt *runtime) serveConnTests(ctx context.Context) (*nats.Subscription, error) {
	f := rt.cfg.Family
	sub, err := rt.js.Conn().QueueSubscribe(bus.ConnTestSubject(f), bus.ConnTestQueue(f), func(m *nats.Msg) {
		go rt.answer(ctx, m)
	})
	if err != nil {
		return nil, fmt.Errorf("subscribe to %s: %w", bus.ConnTestSubject(f), err)
	}
	return sub, nil
}

func (rt *runtime) answer(ctx context.Context, m *nats.Msg) {
	var req busv1.ConnectionTestRequest
	var reply busv1.ConnectionTestReply
	if err := json.Unmarshal(m.Data, &req); err != nil {
		reply = busv1.ConnectionTestReply{Permanent: true, Outcome: busv1.Outcome{Reason: v1alpha1.ReasonConnectionTestFailed,
			Message: fmt.Sprintf("decode connection-test request: %v", err)}}
	} else {
		reply = rt.probe(ctx, req)
	}
	reply.RequestID = req.RequestID
	b, err := json.Marshal(reply)
	if err == nil {
		err = m.Respond(b)
	}
	if err != nil {
		rt.log.Error(err, "answer connection test", app.KeySink, req.Sink.BindingName())
	}
}

// probe builds a fresh sink from the current SinkConfig (so rotated
// credentials are read again) and calls its Check.
func (rt *runtime) probe(ctx context.Context, req busv1.ConnectionTestRequest) busv1.ConnectionTestReply {
	fail := func(reason string, err error, permanent bool) busv1.ConnectionTestReply {
		return busv1.ConnectionTestReply{Permanent: permanent, Outcome: busv1.Outcome{Reason: reason, Message: err.Error()}}
	}
	if req.Sink.Family != rt.cfg.Family {
		return fail(v1alpha1.ReasonConnectionTestFailed, fmt.Errorf("sink %s is not a %s sink", req.Sink.BindingName(), rt.cfg.Family), true)
	}
	cfg, err := rt.configs.sinkConfig(req.Sink, req.SinkGeneration)
	if err != nil {
		return fail(v1alpha1.ReasonSinkConfigPending, err, false)
	}
	ctx, cancel := context.WithTimeout(ctx, rt.cfg.ProbeTimeout)
	defer cancel()
	start := time.Now()
	s, _, err := rt.configs.build(ctx, cfg)
	if err != nil {
		return fail(failureReason(err, v1alpha1.ReasonConnectionTestFailed), err, sink.IsPermanent(err))
	}
	defer func() { _ = s.Close(context.WithoutCancel(ctx)) }()
	c, ok := s.(sink.Checker)
	if !ok {
		return fail(v1alpha1.ReasonConnectionTestUnsupported, fmt.Errorf("%s sinks cannot be probed without writing", cfg.Type), true)
	}
	if err := c.Check(ctx); err != nil {
		err = fmt.Errorf("probe %s sink %s/%s: %w", cfg.Type, cfg.Namespace, cfg.Name, err)
		return fail(failureReason(err, v1alpha1.ReasonConnectionTestFailed), err, sink.IsPermanent(err))
	}
	return busv1.ConnectionTestReply{OK: true, LatencyMs: time.Since(start).Milliseconds()}
}

// failureReason is the reason err carries (a *v1alpha1.ReasonError: a
// Denied refusal, a Secret that cannot be resolved), else def.
func failureReason(err error, def string) string {
	if r := v1alpha1.ReasonOf(err); r != "" {
		return r
	}
	return def
}
