package tenancy

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"strconv"
)

// place is one thing the sweep reads: a name saying where, and its bytes.
type place struct {
	name string
	data []byte
}

// finding is a canary found in a place.
type finding struct {
	place, needle, form string
	// excerpt is the text around the match.
	excerpt string
}

func (f finding) String() string {
	return fmt.Sprintf("%s holds %s (%s): ...%q...", f.place, f.needle, f.form, f.excerpt)
}

// form is one way a needle may appear.
type form struct {
	name string
	text []byte
}

// forms returns needle as is and the part of its standard and URL base64
// encodings that does not depend on what precedes or follows it, for each
// of the three alignments (a value inside a base64 blob, such as a Secret's
// data, basic auth or a JWT, starts at any byte offset).
func forms(needle string) []form {
	out := []form{{"plain", []byte(needle)}}
	seen := map[string]bool{needle: true}
	encodings := []struct {
		name string
		enc  *base64.Encoding
	}{{"base64", base64.RawStdEncoding}, {"base64url", base64.RawURLEncoding}}
	for _, e := range encodings {
		for shift := range 3 {
			s := e.enc.EncodeToString(append(make([]byte, shift), needle...))
			mid := s[(8*shift+5)/6 : 8*(shift+len(needle))/6]
			if !seen[mid] {
				seen[mid] = true
				out = append(out, form{e.name + " at offset " + strconv.Itoa(shift), []byte(mid)})
			}
		}
	}
	return out
}

// search returns every form of every needle in every place.
func search(places []place, needles []string) []finding {
	var out []finding
	for _, n := range needles {
		fs := forms(n)
		for _, p := range places {
			for _, f := range fs {
				i := bytes.Index(p.data, f.text)
				if i < 0 {
					continue
				}
				from, to := max(0, i-60), min(len(p.data), i+len(f.text)+60)
				out = append(out, finding{place: p.name, needle: n, form: f.name, excerpt: string(p.data[from:to])})
			}
		}
	}
	return out
}

// sweep reads every place the suite can see and returns where any needle
// is.
func sweep(ctx context.Context, needles []string) ([]finding, error) {
	var places []place
	for _, gather := range []func(context.Context) ([]place, error){
		recorderPlaces, gitPlaces, logPlaces, busPlaces, statusPlaces, eventPlaces,
	} {
		ps, err := gather(ctx)
		if err != nil {
			return nil, err
		}
		places = append(places, ps...)
	}
	return search(places, needles), nil
}

func recorderPlaces(context.Context) ([]place, error) {
	var out []place
	for _, r := range allRecorders() {
		out = append(out, place{"endpoint " + r.name + " (" + r.addr + ")", r.received()})
	}
	return out, nil
}

func logPlaces(context.Context) ([]place, error) {
	data, err := os.ReadFile(suite.logPath)
	if err != nil {
		return nil, fmt.Errorf("read the services' log: %w", err)
	}
	return []place{{"the services' log " + suite.logPath, data}}, nil
}

// busPlaces are the tap's record of every published message and every
// message still stored in a stream.
func busPlaces(ctx context.Context) ([]place, error) {
	tapped, err := suite.tap.contents()
	if err != nil {
		return nil, err
	}
	out := []place{{"a message published on the bus (tap " + suite.tap.path + ")", tapped}}
	streams, err := streamContents(ctx, suite.bus.JS)
	if err != nil {
		return nil, err
	}
	for name, data := range streams {
		out = append(out, place{"stream " + name, data})
	}
	return out, nil
}
