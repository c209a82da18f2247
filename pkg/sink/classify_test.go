package sink_test

import (
	"context"
	"errors"
	"testing"

	"kollect.dev/kollect/pkg/sink"
)

func TestClassify(t *testing.T) {
	errAuth := errors.New("401 unauthorized")
	errNet := errors.New("connection reset")
	isAuth := func(err error) bool { return errors.Is(err, errAuth) }
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name          string
		ctx           context.Context
		err           error
		permanent     func(error) bool
		wantPermanent bool
		wantMsg       string
		wantIs        []error
	}{
		{name: "an error the predicate names is permanent, wrapped with the operation",
			ctx: context.Background(), err: errAuth, permanent: isAuth,
			wantPermanent: true, wantMsg: "push main: 401 unauthorized", wantIs: []error{errAuth}},
		{name: "an error the predicate does not name stays transient",
			ctx: context.Background(), err: errNet, permanent: isAuth,
			wantMsg: "push main: connection reset", wantIs: []error{errNet}},
		{name: "an error already permanent stays permanent without a predicate",
			ctx: context.Background(), err: sink.Permanent(errNet),
			wantPermanent: true, wantMsg: "push main: connection reset", wantIs: []error{errNet}},
		{name: "a done context joins its error and leaves the error transient",
			ctx: cancelled, err: errAuth, permanent: isAuth,
			wantMsg: "push main: context canceled (401 unauthorized)", wantIs: []error{context.Canceled, errAuth}},
		{name: "a done context is not named twice",
			ctx: cancelled, err: context.Canceled, permanent: isAuth,
			wantMsg: "push main: context canceled", wantIs: []error{context.Canceled}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := sink.Classify(tc.ctx, "push main", tc.err, tc.permanent)
			if sink.IsPermanent(got) != tc.wantPermanent {
				t.Errorf("IsPermanent(%v) = %v, want %v", got, !tc.wantPermanent, tc.wantPermanent)
			}
			if got.Error() != tc.wantMsg {
				t.Errorf("message %q, want %q", got, tc.wantMsg)
			}
			for _, want := range tc.wantIs {
				if !errors.Is(got, want) {
					t.Errorf("%v does not wrap %v", got, want)
				}
			}
		})
	}
	if err := sink.Classify(context.Background(), "op", nil, isAuth); err != nil {
		t.Errorf("Classify(nil) = %v, want nil", err)
	}
	if got := sink.Classify(context.Background(), "", errNet, nil); got != errNet { //nolint:errorlint // identity is the point
		t.Errorf("Classify without operation = %v, want the error itself", got)
	}
}
