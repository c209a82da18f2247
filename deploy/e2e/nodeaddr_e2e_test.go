//go:build e2ecluster

package e2e_test

import (
	"net"
	"testing"

	"kollect.dev/kollect/deploy/e2e"
)

// TestNodeAddressComesAndGoes adds the node's address to this host, serves on it and removes
// it: nothing of it is left, and the host's own addresses are refused.
func TestNodeAddressComesAndGoes(t *testing.T) {
	a, err := e2e.AddNodeAddress("10.123.0.9")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("added on %s", a.Device)
	l, err := net.Listen("tcp", "10.123.0.9:0")
	if err != nil {
		_ = a.Remove()
		t.Fatalf("listen on the node address: %v", err)
	}
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Errorf("dial the node address: %v", err)
	} else {
		c.Close()
	}
	l.Close()
	if _, err := e2e.AddNodeAddress("10.123.0.9"); err != nil {
		t.Errorf("adding it again (a leftover) should replace it: %v", err)
	}
	if err := a.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := net.Listen("tcp", "10.123.0.9:0"); err == nil {
		t.Error("the address outlived Remove")
	}
	own := ownAddress(t)
	if _, err := e2e.AddNodeAddress(own); err == nil {
		t.Errorf("AddNodeAddress(%s), an address of this host's own interface, succeeded", own)
	}
}

// ownAddress is an address of one of this host's interfaces other than loopback.
func ownAddress(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	t.Skip("this host has no IPv4 address besides loopback")
	return ""
}
