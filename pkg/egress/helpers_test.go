package egress_test

import (
	"context"
	"encoding/pem"
	"fmt"
	"net/http/httptest"

	"kollect.dev/kollect/pkg/sink"
)

type mapSecrets map[string]map[string][]byte

func (m mapSecrets) Secret(_ context.Context, namespace, name string) (map[string][]byte, error) {
	d, ok := m[namespace+"/"+name]
	if !ok {
		return nil, sink.Permanent(fmt.Errorf("secret %s/%s not found", namespace, name))
	}
	return d, nil
}

func pemOf(srv *httptest.Server) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
}
