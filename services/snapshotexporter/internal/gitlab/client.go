package gitlab

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"kollect.dev/kollect/pkg/sink"
)

// maxErrorBody bounds how much of an error answer is read for its message.
const maxErrorBody = 64 << 10

// maxAnswer bounds every other answer the sink reads: a page of 100 tree
// entries, a State file or one of its shards, a project, a branch. An
// answer over it is a permanent error naming the call, never held whole.
const maxAnswer = 16 << 20

// errAnswerTooLarge is wrapped by the error of a call whose answer went
// over maxAnswer.
var errAnswerTooLarge = errors.New("gitlab answer over the read limit")

// capped reads at most limit bytes of r and fails past them.
type capped struct {
	r     io.Reader
	limit int64
	read  int64
}

func (c *capped) Read(p []byte) (int, error) {
	if int64(len(p)) > c.limit+1-c.read {
		p = p[:c.limit+1-c.read]
	}
	n, err := c.r.Read(p)
	c.read += int64(n)
	if c.read > c.limit {
		return n - int(c.read-c.limit), fmt.Errorf("answer larger than the read limit of %d bytes: %w", c.limit, errAnswerTooLarge)
	}
	return n, err
}

// client is a small GitLab REST v4 client for one project: only the calls
// the sink makes. Every request carries the token in the PRIVATE-TOKEN
// header and goes through the sink's egress-checked HTTP client, which
// follows no redirect to another origin (sameOrigin).
type client struct {
	http    *http.Client
	api     string // <endpoint>/api/v4
	project string // as configured: numeric ID or full path
	token   string
}

// apiError is a GitLab answer outside 2xx.
type apiError struct {
	Status  int
	Method  string
	Path    string
	Message string
}

func (e *apiError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("gitlab %s %s: %d %s", e.Method, e.Path, e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("gitlab %s %s: %d %s", e.Method, e.Path, e.Status, e.Message)
}

// refused reports an answer refusing the token: 401 or 403.
func (e *apiError) refused() bool {
	return e.Status == http.StatusUnauthorized || e.Status == http.StatusForbidden
}

// projectMissing reports GitLab's 404 for a project it does not know or
// hides from the token (a 404 for a file or branch says otherwise).
func (e *apiError) projectMissing() bool {
	return e.Status == http.StatusNotFound && strings.Contains(e.Message, "Project Not Found")
}

// statusOf returns the HTTP status of a GitLab error, or 0.
func statusOf(err error) int {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.Status
	}
	return 0
}

// escape encodes one path segment as GitLab documents it ("lib%2Fclass%2Erb"):
// "/" too, and "." so that no extension is taken for a response format.
func escape(s string) string {
	return strings.NewReplacer("/", "%2F", ".", "%2E").Replace(url.PathEscape(s))
}

// projectPath is the API path of the project, plus suffix.
func (c *client) projectPath(suffix string) string {
	return "/projects/" + escape(c.project) + suffix
}

// request is one API call.
type request struct {
	method string
	path   string // below /api/v4, already escaped
	query  url.Values
	body   any
}

// do sends req and decodes a JSON answer into out (a *[]byte receives the
// raw body). It returns the answer's headers. Its errors go through
// sink.Classify with the backend's predicate (permanent): refused
// credentials and authorisation, a project GitLab does not know and an
// answer over the read limit are sink.Permanent; once ctx is done every
// error is transient with ctx's error in its chain.
func (c *client) do(ctx context.Context, req request, out any) (http.Header, error) {
	h, err := c.send(ctx, req, out)
	return h, sink.Classify(ctx, "", err, permanent)
}

// send is do without the classification.
func (c *client) send(ctx context.Context, req request, out any) (http.Header, error) {
	u := c.api + req.path
	if len(req.query) > 0 {
		u += "?" + req.query.Encode()
	}
	var body io.Reader
	if req.body != nil {
		b, err := json.Marshal(req.body)
		if err != nil {
			return nil, fmt.Errorf("encode gitlab %s %s: %w", req.method, req.path, err)
		}
		body = bytes.NewReader(b)
	}
	hr, err := http.NewRequestWithContext(ctx, req.method, u, body)
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("build gitlab request %s %s: %w", req.method, req.path, err))
	}
	hr.Header.Set("PRIVATE-TOKEN", c.token)
	hr.Header.Set("Accept", "application/json")
	if body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	hc := *c.http
	hc.CheckRedirect = sameOrigin
	resp, err := hc.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("gitlab %s %s: %w", req.method, req.path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.Header, sink.RetryAfter(c.explain(errorOf(req, resp)), sink.ParseRetryAfter(resp.Header, time.Now()))
	}
	if resp.ContentLength > maxAnswer {
		return resp.Header, fmt.Errorf("read gitlab %s %s: answer of %d bytes, larger than the read limit of %d bytes: %w",
			req.method, req.path, resp.ContentLength, maxAnswer, errAnswerTooLarge)
	}
	r := &capped{r: resp.Body, limit: maxAnswer}
	if raw, ok := out.(*[]byte); ok {
		*raw, err = io.ReadAll(r)
	} else if out != nil {
		err = json.NewDecoder(r).Decode(out)
	}
	if err != nil {
		return resp.Header, fmt.Errorf("read gitlab %s %s: %w", req.method, req.path, err)
	}
	return resp.Header, nil
}

// maxRedirects is how many redirects a call follows, as Go's default.
const maxRedirects = 10

// sameOrigin is the client's CheckRedirect: a call follows redirects
// within the endpoint's origin (scheme, host and port) only. Go forwards
// custom headers such as PRIVATE-TOKEN to any host a server redirects to;
// refusing the redirect keeps the token on the configured server.
func sameOrigin(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return sink.Permanent(fmt.Errorf("stopped after %d redirects", maxRedirects))
	}
	from, to := via[0].URL, req.URL
	if origin(from) != origin(to) {
		return sink.Permanent(fmt.Errorf("the server redirected to another origin %s://%s; the token is not sent there (set spec.endpoint to the address GitLab answers on)", to.Scheme, to.Host))
	}
	return nil
}

// origin is u's scheme://host:port, lower case, with the scheme's default
// port when u names none.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port))
}

// errorOf reads GitLab's {"message": ...} (a string, a list or an object of
// lists) or {"error": ...} from an error answer.
func errorOf(req request, resp *http.Response) *apiError {
	e := &apiError{Status: resp.StatusCode, Method: req.method, Path: req.path}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var v struct {
		Message json.RawMessage `json:"message"`
		Error   string          `json:"error"`
	}
	if json.Unmarshal(b, &v) != nil {
		return e
	}
	var s string
	if json.Unmarshal(v.Message, &s) == nil {
		e.Message = s
	} else if len(v.Message) > 0 {
		e.Message = string(v.Message)
	} else {
		e.Message = v.Error
	}
	return e
}

// explain adds to a refusal of the token, or a project GitLab does not
// know (or hides from the token), what to check.
func (c *client) explain(e *apiError) error {
	switch {
	case e.refused():
		return fmt.Errorf("%w (check the token in the Secret key %q and its api scope)", e, secretKey)
	case e.projectMissing():
		return fmt.Errorf("%w: gitlab project %q does not exist or the token cannot see it", e, c.project)
	}
	return e
}

// permanent is the backend's predicate of errors a retry cannot fix, by
// error type: a GitLab answer refusing the token or not knowing the
// project, and an answer over the read limit. Other answers (a 400 to a
// commit planned on a branch that changed, 409, 429, 5xx) and network
// errors stay transient.
func permanent(err error) bool {
	var ae *apiError
	if errors.As(err, &ae) && (ae.refused() || ae.projectMissing()) {
		return true
	}
	return errors.Is(err, errAnswerTooLarge)
}

// pages calls req page by page (100 entries each) until GitLab's
// X-Next-Page header is empty, appending each page's entries to out.
func pages[T any](ctx context.Context, c *client, req request, out *[]T) error {
	q := req.query
	if q == nil {
		q = url.Values{}
	}
	q.Set("per_page", "100")
	for page := 1; page > 0; {
		q.Set("page", strconv.Itoa(page))
		req.query = q
		var batch []T
		h, err := c.do(ctx, req, &batch)
		if err != nil {
			return err
		}
		*out = append(*out, batch...)
		header := h.Get("X-Next-Page")
		if header == "" {
			return nil // the last page
		}
		next, err := strconv.Atoi(header)
		if err != nil || next <= page {
			return fmt.Errorf("%s %s: X-Next-Page %q after page %d is not a later page", req.method, req.path, header, page)
		}
		page = next
	}
	return nil
}
