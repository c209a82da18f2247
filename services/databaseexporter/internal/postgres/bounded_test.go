package postgres

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"github.com/jackc/pgx/v5/pgproto3"
)

// serverMessage is a DataRow header announcing a body of n bytes, followed
// by a few of them.
func serverMessage(n uint32) []byte {
	b := []byte{'D', 0, 0, 0, 0}
	binary.BigEndian.PutUint32(b[1:], n+4)
	return append(b, make([]byte, 16)...)
}

func TestAServerMessageOverTheBoundFailsTheConnection(t *testing.T) {
	cfg, err := parse("postgres://kollect@127.0.0.1:5432/inventory", "spec.postgres.dsn")
	if err != nil {
		t.Fatal(err)
	}
	f := cfg.ConnConfig.BuildFrontend(bytes.NewReader(serverMessage(maxServerMessageBytes+1)), io.Discard)
	_, err = f.Receive()
	var over *pgproto3.ExceededMaxBodyLenErr
	if !errors.As(err, &over) {
		t.Fatalf("receive a message of %d bytes: %v, want the body bound", maxServerMessageBytes+1, err)
	}
	// A message within the bound is read (here it ends early, so the
	// read fails on the missing bytes, not on the bound).
	f = cfg.ConnConfig.BuildFrontend(bytes.NewReader(serverMessage(1024)), io.Discard)
	if _, err := f.Receive(); errors.As(err, &over) {
		t.Fatalf("a message of 1 KiB hit the bound: %v", err)
	}
}
