package git

import (
	"bytes"
	"encoding/binary"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"
)

// sshServer serves the bare repositories under root over SSH, in process:
// golang.org/x/crypto/ssh for the protocol, git upload-pack and
// receive-pack as subprocesses, one accepted client key.
type sshServer struct {
	addr       string
	knownHosts []byte
	root       string
	ln         net.Listener
	wg         sync.WaitGroup
}

// startSSH serves root to clients holding client; the test's cleanup
// stops it.
func startSSH(t testing.TB, root string, client ssh.PublicKey) *sshServer {
	t.Helper()
	host := newKey(t)
	cfg := &ssh.ServerConfig{PublicKeyCallback: func(_ ssh.ConnMetadata, k ssh.PublicKey) (*ssh.Permissions, error) {
		if bytes.Equal(k.Marshal(), client.Marshal()) {
			return nil, nil
		}
		return nil, errors.New("unknown key")
	}}
	cfg.AddHostKey(host.signer)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &sshServer{addr: ln.Addr().String(), root: root, ln: ln,
		knownHosts: []byte(knownhosts.Line([]string{knownhosts.Normalize(ln.Addr().String())}, host.signer.PublicKey()) + "\n")}
	s.wg.Add(1)
	go s.serve(cfg)
	t.Cleanup(func() {
		_ = ln.Close()
		s.wg.Wait()
	})
	return s
}

func (s *sshServer) serve(cfg *ssh.ServerConfig) {
	defer s.wg.Done()
	for {
		conn, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			s.handle(conn, cfg)
		}()
	}
}

func (s *sshServer) handle(conn net.Conn, cfg *ssh.ServerConfig) {
	defer func() { _ = conn.Close() }()
	_, chans, reqs, err := ssh.NewServerConn(conn, cfg)
	if err != nil {
		return
	}
	go ssh.DiscardRequests(reqs)
	for nc := range chans {
		if nc.ChannelType() != "session" {
			_ = nc.Reject(ssh.UnknownChannelType, "session only")
			continue
		}
		ch, creqs, err := nc.Accept()
		if err != nil {
			return
		}
		s.session(ch, creqs)
	}
}

// session runs the one git command a Git client execs.
func (s *sshServer) session(ch ssh.Channel, reqs <-chan *ssh.Request) {
	defer func() { _ = ch.Close() }()
	for req := range reqs {
		if req.Type == "env" {
			_ = req.Reply(true, nil)
			continue
		}
		if req.Type != "exec" || len(req.Payload) < 4 {
			_ = req.Reply(false, nil)
			continue
		}
		line := string(req.Payload[4:])
		service, repo, _ := strings.Cut(line, " ")
		repo = strings.Trim(repo, "'")
		if service != "git-upload-pack" && service != "git-receive-pack" {
			_ = req.Reply(false, nil)
			return
		}
		_ = req.Reply(true, nil)
		cmd := exec.Command("git", strings.TrimPrefix(service, "git-"), filepath.Join(s.root, filepath.Clean("/"+repo)))
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		cmd.Stdin, cmd.Stdout, cmd.Stderr = ch, ch, ch.Stderr()
		code := uint32(0)
		if err := cmd.Run(); err != nil {
			code = 1
			var exit *exec.ExitError
			if errors.As(err, &exit) {
				code = uint32(exit.ExitCode())
			}
		}
		_ = ch.CloseWrite()
		status := make([]byte, 4)
		binary.BigEndian.PutUint32(status, code)
		_, _ = ch.SendRequest("exit-status", false, status)
		return
	}
}
