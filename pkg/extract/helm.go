package extract

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// HelmReleaseSecretType is the Secret type Helm 3 stores releases in.
const HelmReleaseSecretType = "helm.sh/release.v1" //nolint:gosec // G101: a Secret type name, not a credential

const helmPrefix = "helm:release."

// maxHelmRelease bounds a release's uncompressed size (Secrets hold at most 1 MiB compressed).
const maxHelmRelease = 64 << 20

// HelmFields are the fields a helm:release.<field> path may name.
var HelmFields = []string{"releaseName", "chartName", "chartVersion", "appVersion", "revision", "status", "lastDeployed", "namespace", "config"}

// helmField is one helm:release.<field> path.
type helmField string

func parseHelmPath(path string) (helmField, error) {
	f := strings.TrimPrefix(path, helmPrefix)
	for _, known := range HelmFields {
		if f == known {
			return helmField(f), nil
		}
	}
	return "", fmt.Errorf("unknown Helm release field %q; supported: %s", f, strings.Join(HelmFields, ", "))
}

// helmRelease holds the parts of a Helm release the fields read. The manifest, chart
// templates and files are skipped while decoding.
type helmRelease struct {
	Name      string `json:"name"`
	Namespace string `json:"namespace"`
	Version   int64  `json:"version"`
	Info      struct {
		Status       string `json:"status"`
		LastDeployed string `json:"last_deployed"`
	} `json:"info"`
	Chart struct {
		Metadata struct {
			Name       string `json:"name"`
			Version    string `json:"version"`
			AppVersion string `json:"appVersion"`
		} `json:"metadata"`
	} `json:"chart"`
	Config json.RawMessage `json:"config"`
}

// helmCache decodes the release of one object at most once per evaluation, however many helm
// attributes the Profile has.
type helmCache struct {
	done    bool
	isHelm  bool
	release helmRelease
	config  any
	decoded bool // config decoded
	err     error
}

func (c *helmCache) get(obj map[string]any) (*helmRelease, bool, error) {
	if !c.done {
		c.done = true
		c.isHelm, c.err = decodeHelmRelease(obj, &c.release)
	}
	return &c.release, c.isHelm, c.err
}

// value returns one field. A Secret of another type has no release: every field is missing.
func (c *helmCache) value(obj map[string]any, f helmField) (any, bool, error) {
	r, ok, err := c.get(obj)
	if err != nil || !ok {
		return nil, false, err
	}
	switch f {
	case "releaseName":
		return r.Name, r.Name != "", nil
	case "chartName":
		return r.Chart.Metadata.Name, r.Chart.Metadata.Name != "", nil
	case "chartVersion":
		return r.Chart.Metadata.Version, r.Chart.Metadata.Version != "", nil
	case "appVersion":
		return r.Chart.Metadata.AppVersion, r.Chart.Metadata.AppVersion != "", nil
	case "revision":
		return r.Version, true, nil
	case "status":
		return r.Info.Status, r.Info.Status != "", nil
	case "lastDeployed":
		return r.Info.LastDeployed, r.Info.LastDeployed != "", nil
	case "namespace":
		return r.Namespace, r.Namespace != "", nil
	case "config":
		return c.configValue(r)
	}
	return nil, false, fmt.Errorf("unknown Helm release field %q", f)
}

func (c *helmCache) configValue(r *helmRelease) (any, bool, error) {
	if !c.decoded {
		c.decoded = true
		if len(r.Config) > 0 && string(r.Config) != "null" {
			// util/json keeps integers as int64, as unstructured objects do.
			if err := utiljson.Unmarshal(r.Config, &c.config); err != nil {
				return nil, false, errors.New("decode Helm release config: not valid JSON") // the error quotes the data
			}
		}
	}
	return c.config, c.config != nil, nil
}

// decodeHelmRelease reads data.release of a helm.sh/release.v1 Secret: base64 in the Secret's
// JSON, whose bytes are base64 of gzip of the release JSON (Helm also accepts them without
// gzip). Errors never quote the data.
func decodeHelmRelease(obj map[string]any, into *helmRelease) (bool, error) {
	if t, _ := obj["type"].(string); t != HelmReleaseSecretType {
		return false, nil
	}
	data, _ := obj["data"].(map[string]any)
	enc, ok := data["release"].(string)
	if !ok {
		return false, errors.New("helm release Secret without data.release")
	}
	inner, err := base64.StdEncoding.DecodeString(enc)
	if err != nil {
		return false, fmt.Errorf("decode Helm release: Secret data is not base64: %w", err)
	}
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(inner)))
	n, err := base64.StdEncoding.Decode(raw, inner)
	if err != nil {
		return false, fmt.Errorf("decode Helm release: release is not base64: %w", err)
	}
	raw = raw[:n]
	if bytes.HasPrefix(raw, []byte{0x1f, 0x8b, 0x08}) {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return false, fmt.Errorf("decode Helm release: %w", err)
		}
		if raw, err = io.ReadAll(io.LimitReader(zr, maxHelmRelease+1)); err != nil {
			return false, fmt.Errorf("decode Helm release: gunzip: %w", err)
		}
		if len(raw) > maxHelmRelease {
			return false, fmt.Errorf("decode Helm release: larger than %d bytes uncompressed", maxHelmRelease)
		}
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return false, errors.New("decode Helm release: not valid JSON") // the error quotes the data
	}
	return true, nil
}
