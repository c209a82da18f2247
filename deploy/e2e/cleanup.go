package e2e

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// removeContainers kills and deletes every task and container containerd runs for the
// cluster, so that stopping containerd leaves no pod behind.
func (c *Cluster) removeContainers(ctx context.Context) error {
	out, err := c.ctr(ctx, "tasks", "ls", "-q")
	if err != nil {
		return err
	}
	var errs []error
	for _, id := range strings.Fields(out) {
		// A task whose processes killPods ended may be gone by now: not an error.
		if _, err := c.ctr(ctx, "tasks", "rm", "-f", id); err != nil && !strings.Contains(err.Error(), "not found") {
			errs = append(errs, err)
		}
	}
	out, err = c.ctr(ctx, "containers", "ls", "-q")
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	for _, id := range strings.Fields(out) {
		if _, err := c.ctr(ctx, "containers", "rm", id); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// cleanHost undoes what the cluster did to the host: mounts under the work folder and
// the pods' network namespaces, the pod bridge, and kube-proxy's iptables rules.
func (c *Cluster) cleanHost() error {
	var errs []error
	mounts, err := mountsUnder(c.cfg.Dir, "/run/netns/cni-", "/var/run/netns/cni-")
	if err != nil {
		errs = append(errs, err)
	}
	for _, m := range mounts {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil {
			errs = append(errs, fmt.Errorf("unmount %s: %w", m, err))
		}
		if strings.Contains(m, "/netns/cni-") {
			_ = os.Remove(m)
		}
	}
	if _, err := os.Stat("/sys/class/net/kollect0"); err == nil {
		if b, err := exec.Command("ip", "link", "del", "kollect0").CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("ip link del kollect0: %w: %s", err, b))
		}
	}
	removeKubepods()
	if b, err := exec.Command(c.toolPath("cluster/kube-proxy"), "--cleanup").CombinedOutput(); err != nil { //nolint:gosec // G204: our kube-proxy
		errs = append(errs, fmt.Errorf("kube-proxy --cleanup: %w: %s", err, b))
	}
	return errors.Join(errs...)
}

// killPods kills every process in the kubelet's pod cgroups and waits until none is
// left: containerd deletes no container whose task still runs, and a pod left running
// would outlive the cluster.
func killPods(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	for {
		pids := podProcesses()
		if len(pids) == 0 {
			return nil
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("processes %v of the pods outlived SIGKILL: %w", pids, ctx.Err())
		case <-time.After(100 * time.Millisecond): // poll the cgroups until the kernel has reaped them
		}
	}
}

// podProcesses lists the processes of every cgroup below kubepods (the pids hierarchy
// of cgroups v1, or the unified hierarchy of v2 with the cgroupfs driver).
func podProcesses() []int {
	var pids []int
	walk := func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() != "cgroup.procs" {
			return nil //nolint:nilerr // a cgroup removed while walking has no processes
		}
		b, _ := os.ReadFile(path) //nolint:gosec // G304: a cgroup.procs file under /sys/fs/cgroup
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				pids = append(pids, pid)
			}
		}
		return nil
	}
	_ = filepath.WalkDir("/sys/fs/cgroup/pids/kubepods", walk)
	_ = filepath.WalkDir("/sys/fs/cgroup/kubepods", walk)
	return pids
}

// removeKubepods removes the (then empty) kubepods cgroups the kubelet made in every
// cgroups v1 hierarchy, deepest first; one still in use stays.
func removeKubepods() {
	roots, _ := filepath.Glob("/sys/fs/cgroup/*/kubepods")
	for _, r := range roots {
		var dirs []string
		_ = filepath.WalkDir(r, func(path string, d fs.DirEntry, err error) error {
			if err == nil && d.IsDir() {
				dirs = append(dirs, path)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			_ = syscall.Rmdir(dirs[i])
		}
	}
}

// mountsUnder lists the mount points below the given prefixes, deepest first.
func mountsUnder(prefixes ...string) ([]string, error) {
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) < 5 {
			continue
		}
		for _, p := range prefixes {
			if strings.HasPrefix(fields[4], p) {
				out = append(out, fields[4])
				break
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return len(out[i]) > len(out[j]) })
	return out, s.Err()
}
