package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
)

const vulndbModule = "golang.org/x/vulndb"

// entry holds the OSV fields the indexes need.
type entry struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Affected []struct {
		Package struct {
			Name string `json:"name"`
		} `json:"package"`
		Ranges []osvRange `json:"ranges"`
	} `json:"affected"`
}

// osvRange is one OSV affected range.
type osvRange struct {
	Type   string `json:"type"`
	Events []struct {
		Introduced string `json:"introduced"`
		Fixed      string `json:"fixed"`
	} `json:"events"`
}

type moduleVuln struct {
	ID       string    `json:"id"`
	Modified time.Time `json:"modified"`
	Fixed    string    `json:"fixed,omitempty"`
}

type moduleIndex struct {
	Path  string       `json:"path"`
	Vulns []moduleVuln `json:"vulns"`
}

func main() {
	out := flag.String("out", "", "folder to write the database into (required)")
	flag.Parse()
	if *out == "" {
		fmt.Fprintln(os.Stderr, "vulndb: -out is required")
		os.Exit(2)
	}
	if err := build(*out); err != nil {
		fmt.Fprintln(os.Stderr, "vulndb:", err)
		os.Exit(1)
	}
}

// download returns the pinned vulndb module's folder and version.
func download() (dir, version string, err error) {
	cmd := exec.Command("go", "mod", "download", "-json", vulndbModule)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return "", "", fmt.Errorf("download %s: %w: %s", vulndbModule, err, stderr.String())
	}
	var m struct{ Dir, Version string }
	if err := json.Unmarshal(b, &m); err != nil {
		return "", "", fmt.Errorf("decode download of %s: %w", vulndbModule, err)
	}
	return m.Dir, m.Version, nil
}

func build(out string) error {
	src, version, err := download()
	if err != nil {
		return err
	}
	snapshot, err := module.PseudoVersionTime(version)
	if err != nil {
		return fmt.Errorf("read snapshot time of %s@%s: %w", vulndbModule, version, err)
	}
	files, err := filepath.Glob(filepath.Join(src, "data", "osv", "*.json"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("find OSV files in %s: %d found (%v)", src, len(files), err)
	}
	for _, d := range []string{"index", "ID"} {
		if err := os.MkdirAll(filepath.Join(out, d), 0o750); err != nil {
			return fmt.Errorf("create %s: %w", d, err)
		}
	}
	modules := map[string]*moduleIndex{}
	var latest time.Time
	for _, f := range files {
		e, err := convert(f, out, snapshot)
		if err != nil {
			return err
		}
		if e.Modified.After(latest) {
			latest = e.Modified
		}
		for _, a := range e.Affected {
			m := modules[a.Package.Name]
			if m == nil {
				m = &moduleIndex{Path: a.Package.Name}
				modules[a.Package.Name] = m
			}
			m.Vulns = append(m.Vulns, moduleVuln{ID: e.ID, Modified: e.Modified, Fixed: nonSupersededFix(a.Ranges)})
		}
	}
	paths := make([]string, 0, len(modules))
	for p := range modules {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	list := make([]*moduleIndex, 0, len(paths))
	for _, p := range paths {
		list = append(list, modules[p])
	}
	if err := writeJSON(filepath.Join(out, "index", "modules.json"), list); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "vulndb: %d entries, %d modules from %s@%s\n", len(files), len(paths), vulndbModule, version)
	return writeJSON(filepath.Join(out, "index", "db.json"), map[string]time.Time{"modified": latest})
}

// convert copies one OSV file into ID/, setting a zero modified time to snapshot.
func convert(path, out string, snapshot time.Time) (*entry, error) {
	b, err := os.ReadFile(path) //nolint:gosec // G304: files of the pinned vulndb module
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var e entry
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &e); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	if e.Modified.IsZero() {
		e.Modified = snapshot
		raw["modified"], _ = json.Marshal(snapshot)
	}
	return &e, writeJSON(filepath.Join(out, "ID", e.ID+".json"), raw)
}

// nonSupersededFix is govulncheck's rule: the latest fixed version of the SEMVER ranges,
// or none when the vulnerability was introduced again after it.
func nonSupersededFix(ranges []osvRange) string {
	less := func(a, b string) bool { return semver.Compare("v"+a, "v"+b) < 0 }
	latest := ""
	for _, r := range ranges {
		if r.Type != "SEMVER" {
			continue
		}
		for _, e := range r.Events {
			if e.Fixed != "" && less(latest, e.Fixed) {
				latest = e.Fixed
			}
		}
		for _, e := range r.Events {
			if e.Introduced != "" && e.Introduced != "0" && less(latest, e.Introduced) {
				latest = ""
				break
			}
		}
	}
	return latest
}

func writeJSON(path string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil { //nolint:gosec // G306: public data
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
