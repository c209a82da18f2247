package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// toolServer is what the peers built by `make tools` share: a folder holding
// data/ and the log, a free port and the running process.
type toolServer struct {
	dir     string
	logFile string
	port    int
	proc    *process
	ownDir  bool
}

// toolSpec says how to run one tool.
type toolSpec struct {
	tool    string // relative to the tools folder, e.g. "bin/versitygw"
	name    string // for logs and errors
	pattern string // os.MkdirTemp pattern when no folder is given
	args    func(port int, data string) []string
	ready   func(port int) func() error
}

// startTool runs spec in dir (a new temporary folder when empty) on a free
// port and waits until it is ready. On failure nothing is left running and a
// folder it made is removed.
func startTool(dir string, spec toolSpec) (*toolServer, error) {
	bin, err := Tool(spec.tool)
	if err != nil {
		return nil, err
	}
	dir, owned, err := peerDir(dir, spec.pattern)
	if err != nil {
		return nil, fmt.Errorf("make %s folder: %w", spec.name, err)
	}
	s := &toolServer{dir: dir, logFile: filepath.Join(dir, filepath.Base(spec.tool)+".log"), ownDir: owned}
	if err := s.start(bin, spec); err != nil {
		s.removeDir()
		return nil, err
	}
	return s, nil
}

func (s *toolServer) start(bin string, spec toolSpec) error {
	data := filepath.Join(s.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	port, err := FreePort()
	if err != nil {
		return err
	}
	p, err := startProcess(spec.name, s.logFile, 0, exec.Command(bin, spec.args(port, data)...))
	if err != nil {
		return err
	}
	if err := waitReady(p, spec.ready(port)); err != nil {
		return err
	}
	s.port, s.proc = port, p
	return nil
}

// stop stops the process and removes the folder when startTool made it.
func (s *toolServer) stop() error {
	err := s.proc.Stop()
	s.removeDir()
	return err
}

func (s *toolServer) tail() string { return s.proc.Tail(40) }

func (s *toolServer) removeDir() {
	if s.ownDir {
		_ = os.RemoveAll(s.dir)
	}
}
