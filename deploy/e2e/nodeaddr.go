package e2e

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
)

// DefaultNodeIP is the node's address unless -node-ip says otherwise: an address of no network
// this host is on (the machine's own interface is never used), outside the cluster's Service
// (10.0.0.0/24) and pod (10.244.0.0/24) ranges.
const DefaultNodeIP = "10.123.0.1"

const (
	// nodeLink is the dummy interface that holds the node's address.
	nodeLink = "kollect-e2e0"
	// loLabel labels the address when it is an alias of the loopback interface instead (a
	// kernel without the dummy driver), so that a leftover one is found and removed.
	loLabel = "lo:kollect-e2e"
)

// NodeAddress is the address the test adds to this host for the node: the API server, the
// kubelet and CoreDNS listen on it and pods reach the host through it.
type NodeAddress struct {
	IP string
	// Device is where it was added: the dummy interface kollect-e2e0, or lo.
	Device string
}

// AddNodeAddress adds ip/32 to the host, on a dummy interface kollect-e2e0 when the kernel
// has the dummy driver and else as an alias of the loopback interface labelled
// lo:kollect-e2e. A leftover of an earlier run is removed first; an address the host has
// otherwise (its own interface's) is refused. Remove takes it away.
func AddNodeAddress(ip string) (*NodeAddress, error) {
	p := net.ParseIP(ip)
	if p == nil || p.To4() == nil || p.IsLoopback() || p.IsUnspecified() || p.IsLinkLocalUnicast() {
		return nil, fmt.Errorf("node address %q: want an IPv4 address, not loopback or link-local (the kubelet refuses those)", ip)
	}
	if err := removeLeftovers(); err != nil {
		return nil, err
	}
	if have, err := hostHas(p); err != nil || have {
		if err == nil {
			err = errors.New("an address of this host already: pick another -node-ip, the test creates its own")
		}
		return nil, fmt.Errorf("node address %s: %w", ip, err)
	}
	a := &NodeAddress{IP: ip, Device: nodeLink}
	if ipCmd("link", "add", nodeLink, "type", "dummy") != nil {
		// No dummy driver (this builder's kernel has none): a loopback alias.
		a.Device = "lo"
		if err := ipCmd("addr", "add", ip+"/32", "dev", "lo", "label", loLabel); err != nil {
			return nil, err
		}
		return a, nil
	}
	if err := ipCmd("addr", "add", ip+"/32", "dev", nodeLink); err != nil {
		return nil, errors.Join(err, ipCmd("link", "del", nodeLink))
	}
	if err := ipCmd("link", "set", nodeLink, "up"); err != nil {
		return nil, errors.Join(err, ipCmd("link", "del", nodeLink))
	}
	return a, nil
}

// Remove deletes the address (and the dummy interface).
func (a *NodeAddress) Remove() error {
	if a.Device == nodeLink {
		return ipCmd("link", "del", nodeLink)
	}
	return ipCmd("addr", "del", a.IP+"/32", "dev", "lo", "label", loLabel)
}

// removeLeftovers deletes the dummy interface and the labelled loopback aliases an
// interrupted run left.
func removeLeftovers() error {
	var errs []error
	if _, err := os.Stat("/sys/class/net/" + nodeLink); err == nil {
		errs = append(errs, ipCmd("link", "del", nodeLink))
	}
	out, err := exec.Command("ip", "-4", "-o", "addr", "show", "dev", "lo", "label", loLabel).Output()
	if err != nil {
		return fmt.Errorf("ip addr show dev lo: %w", err)
	}
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		for i := 0; i+1 < len(f); i++ {
			if f[i] == "inet" {
				errs = append(errs, ipCmd("addr", "del", f[i+1], "dev", "lo", "label", loLabel))
			}
		}
	}
	return errors.Join(errs...)
}

// hostHas says whether ip is an address of one of this host's interfaces.
func hostHas(ip net.IP) (bool, error) {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return false, fmt.Errorf("list the host's addresses: %w", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
			return true, nil
		}
	}
	return false, nil
}

func ipCmd(args ...string) error {
	if b, err := exec.Command("ip", args...).CombinedOutput(); err != nil { //nolint:gosec // G204: ip with our arguments
		return fmt.Errorf("ip %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(string(b)))
	}
	return nil
}
