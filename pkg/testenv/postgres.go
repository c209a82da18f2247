package testenv

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Postgres is a throwaway PostgreSQL cluster of Debian's PostgreSQL, made by
// initdb in a temporary folder and served on a free loopback port with
// durability switched off. When the test runs as root the server runs as
// the postgres OS user, since PostgreSQL refuses to run as root.
type Postgres struct {
	// DSN connects as the superuser postgres to the database postgres.
	DSN string
	// Port is the loopback TCP port the server listens on.
	Port int
	// Dir holds the cluster: data/, the socket folder sock/ and the log.
	Dir string
	// LogFile is the server's log, kept across restarts.
	LogFile string

	bindir string
	cred   *syscall.Credential // nil when the server runs as the current user
	proc   *process            // nil while the server is stopped
	ownDir bool
}

// StartPostgres initialises a cluster in a new temporary folder and starts it;
// the test's cleanup stops it and removes the folder. It takes a few seconds
// (initdb): tests of one package may share one cluster from TestMain with
// NewPostgres and isolate themselves with CreateDatabase.
func StartPostgres(t testing.TB) *Postgres {
	t.Helper()
	pg, err := NewPostgres("")
	if err != nil {
		t.Fatalf("start PostgreSQL: %v", err)
	}
	stopOnCleanup(t, "PostgreSQL", pg.Stop, func() string { return logTail("PostgreSQL", pg.LogFile) })
	return pg
}

// NewPostgres initialises a cluster in dir and starts it; the caller owns
// Stop. An empty dir means a new temporary folder that Stop removes. When
// running as root, dir and its parents must be traversable by the postgres
// user (a t.TempDir of a root process is not).
func NewPostgres(dir string) (*Postgres, error) {
	bindir, err := postgresBindir()
	if err != nil {
		return nil, err
	}
	cred, err := postgresCredential()
	if err != nil {
		return nil, err
	}
	dir, owned, err := peerDir(dir, "kollect-postgres-")
	if err != nil {
		return nil, fmt.Errorf("make PostgreSQL folder: %w", err)
	}
	pg := &Postgres{Dir: dir, LogFile: filepath.Join(dir, "postgres.log"), bindir: bindir, cred: cred, ownDir: owned}
	if err := pg.init(); err != nil {
		pg.removeDir()
		return nil, err
	}
	if pg.Port, err = FreePort(); err != nil {
		pg.removeDir()
		return nil, err
	}
	pg.DSN = pg.dsn("postgres")
	if err := pg.StartServer(); err != nil {
		pg.removeDir()
		return nil, err
	}
	return pg, nil
}

// init prepares the folders for the server's user and runs initdb.
func (pg *Postgres) init() error {
	if err := os.Chmod(pg.Dir, 0o755); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(pg.Dir, "sock"), 0o700); err != nil {
		return err
	}
	if pg.cred != nil {
		for _, d := range []string{pg.Dir, filepath.Join(pg.Dir, "sock")} {
			if err := os.Chown(d, int(pg.cred.Uid), int(pg.cred.Gid)); err != nil {
				return fmt.Errorf("hand %s to user postgres: %w", d, err)
			}
		}
		if err := checkTraversable(pg.Dir, pg.cred.Uid); err != nil {
			return err
		}
	}
	cmd := exec.Command(filepath.Join(pg.bindir, "initdb"), "-D", filepath.Join(pg.Dir, "data"),
		"-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync", "--no-instructions")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: pg.cred}
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb in %s: %w\n%s", pg.Dir, err, out)
	}
	return nil
}

// StartServer starts the server on Port after StopServer; NewPostgres calls it
// once. Data written before the stop is kept.
func (pg *Postgres) StartServer() error {
	if pg.proc != nil {
		return errors.New("PostgreSQL is already running")
	}
	data := filepath.Join(pg.Dir, "data")
	cmd := exec.Command(filepath.Join(pg.bindir, "postgres"), "-D", data,
		"-h", "127.0.0.1", "-p", strconv.Itoa(pg.Port), "-k", filepath.Join(pg.Dir, "sock"),
		"-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: pg.cred}
	// SIGINT is PostgreSQL's fast shutdown: it does not wait for clients.
	p, err := startProcess("PostgreSQL", pg.LogFile, syscall.SIGINT, cmd)
	if err != nil {
		return err
	}
	if err := waitReady(p, postmasterReady(data, cmd.Process.Pid)); err != nil {
		return err
	}
	pg.proc = p
	return nil
}

// StopServer shuts the server down (fast: open sessions are ended), keeping
// the data; StartServer brings it back on the same port.
func (pg *Postgres) StopServer() error {
	if pg.proc == nil {
		return nil
	}
	err := pg.proc.Stop()
	pg.proc = nil
	return err
}

// Kill kills the server's processes with SIGKILL, as a crash would, keeping
// the data; StartServer recovers it (PostgreSQL replays its log).
func (pg *Postgres) Kill() error {
	if pg.proc == nil {
		return nil
	}
	err := pg.proc.Kill()
	pg.proc = nil
	return err
}

// Restart stops and starts the server on the same port and data, as an outage
// would; clients must reconnect.
func (pg *Postgres) Restart(t testing.TB) {
	t.Helper()
	if err := pg.StopServer(); err != nil {
		t.Fatalf("stop PostgreSQL: %v", err)
	}
	if err := pg.StartServer(); err != nil {
		t.Fatalf("restart PostgreSQL: %v", err)
	}
}

// Stop shuts the server down and removes the folder when NewPostgres made it.
func (pg *Postgres) Stop() error {
	err := pg.StopServer()
	pg.removeDir()
	return err
}

// CreateDatabase creates the database name and returns a DSN for it, so that
// tests sharing a cluster do not see each other's tables.
func (pg *Postgres) CreateDatabase(t testing.TB, name string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(pg.bindir, "createdb"),
		"-h", "127.0.0.1", "-p", strconv.Itoa(pg.Port), "-U", "postgres", "--", name)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("create database %q: %v\n%s", name, err, out)
	}
	return pg.dsn(name)
}

func (pg *Postgres) dsn(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", pg.Port, url.PathEscape(db))
}

func (pg *Postgres) removeDir() {
	if pg.ownDir {
		_ = os.RemoveAll(pg.Dir)
	}
}

// postmasterReady reports whether postmaster.pid names pid and says "ready",
// which is what pg_ctl -w waits for.
func postmasterReady(data string, pid int) func() error {
	return func() error {
		b, err := os.ReadFile(filepath.Join(data, "postmaster.pid"))
		if err != nil {
			return err
		}
		lines := strings.Split(string(b), "\n")
		if len(lines) < 8 || strings.TrimSpace(lines[0]) != strconv.Itoa(pid) {
			return errors.New("postmaster.pid is incomplete")
		}
		if st := strings.TrimSpace(lines[7]); st != "ready" {
			return fmt.Errorf("postmaster status %q", st)
		}
		return nil
	}
}

// postgresBindir finds Debian's PostgreSQL programs: `pg_config --bindir`,
// else the newest /usr/lib/postgresql/<version>/bin.
func postgresBindir() (string, error) {
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dir := strings.TrimSpace(string(out))
		if _, err := os.Stat(filepath.Join(dir, "initdb")); err == nil {
			return dir, nil
		}
	}
	found, best := "", -1
	matches, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	for _, m := range matches {
		bin := filepath.Dir(m)
		v, err := strconv.ParseFloat(filepath.Base(filepath.Dir(bin)), 64)
		if err == nil && int(v*100) > best {
			found, best = bin, int(v*100)
		}
	}
	if found == "" {
		return "", errors.New("PostgreSQL server not found (no initdb from pg_config --bindir or in /usr/lib/postgresql/*/bin): install the Debian package postgresql, as .ci/run does")
	}
	return found, nil
}

// postgresCredential returns the postgres OS user when running as root, and
// nil (run as ourselves) otherwise.
func postgresCredential() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("running as root, PostgreSQL needs the postgres OS user (Debian package postgresql): %w", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// checkTraversable fails with a useful message when a parent of dir cannot be
// entered by uid, which initdb would only report as "permission denied".
func checkTraversable(dir string, uid uint32) error {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	for p := filepath.Dir(abs); ; p = filepath.Dir(p) {
		var st syscall.Stat_t
		if err := syscall.Stat(p, &st); err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		if st.Uid != uid && st.Mode&0o001 == 0 {
			return fmt.Errorf("user postgres cannot enter %s (mode %o): put the PostgreSQL folder under /tmp, or pass an empty dir", p, st.Mode&0o777)
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}
