package k8s

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// logSpec is kubernetes.core.k8s_log's argument_spec: the auth and name
// options, kind defaulting to Pod, and its own.
var logSpec = &argspec.Spec{
	Options: concat(authOptions(), []opt{
		{Name: "kind", Default: "Pod"},
		{Name: "name"},
		{Name: "namespace"},
		{Name: "api_version", Default: "v1", Aliases: []string{"api", "version"}},
		{Name: "container"},
		{Name: "since_seconds"},
		{Name: "label_selectors", Type: argspec.List, Elements: argspec.Str, Default: []any{}},
		{Name: "previous", Type: argspec.Bool, Default: false},
		{Name: "tail_lines", Type: argspec.Int},
		{Name: "all_containers", Type: argspec.Bool},
	}),
	Rules: argspec.Rules{MutuallyExclusive: [][]string{{"container", "all_containers"}}},
}

// runLog is kubernetes.core.k8s_log: the log of a pod, named, found by
// label selectors (the first pod listed, as kubectl takes), or through
// the selector of an object without a log subresource (a Deployment,
// ...). It never changes anything.
func runLog(req *module.Request) (*value.Dict, error) {
	p, c, ctx, failed := connect(req, "kubernetes.core.k8s_log", logSpec, connectOpts{})
	if failed != nil {
		return failed, nil
	}
	res, err := podLog(ctx, c, p)
	if err != nil {
		var f *module.Failure
		if errors.As(err, &f) {
			return module.FailedResult(f), nil
		}
		return module.Crashed(err), nil
	}
	return res, nil
}

func podLog(ctx context.Context, c *Clients, p params) (*value.Dict, error) {
	name, namespace := p.str("name"), p.str("namespace")
	selector := strings.Join(p.strs("label_selectors"), ",")
	if name != "" && selector != "" {
		return nil, failf("Only one of name or label_selectors can be provided")
	}
	kind, apiVersion := p.str("kind"), p.str("api_version")
	res, err := c.findResource(kind, apiVersion)
	if err != nil || res == nil {
		return nil, noMatch(apiVersion, kind, err)
	}
	pods, err := c.findResource("Pod", "v1")
	if err != nil || pods == nil {
		return nil, noMatch("v1", "Pod", err)
	}
	if !res.Subresources["log"] {
		if name == "" {
			return nil, failf("name must be provided for resources that do not support the log subresource")
		}
		got, err := c.do(ctx, request{verb: "GET", path: res.path(name, namespace)})
		if err != nil {
			// kubernetes.core lets the client's exception escape.
			return nil, fmt.Errorf("kubernetes.dynamic.exceptions.%s: %s", dynamicErrorName(err), err)
		}
		sels, err := extractSelectors(got.obj)
		if err != nil {
			return nil, err
		}
		selector = strings.Join(sels, ",")
		res = pods
	}
	if selector != "" {
		list, err := c.do(ctx, request{verb: "GET", path: pods.path("", namespace), query: url.Values{"labelSelector": {selector}}})
		if err != nil {
			return nil, fmt.Errorf("kubernetes.dynamic.exceptions.%s: %s", dynamicErrorName(err), err)
		}
		items, _ := field(list.obj, "items").([]any)
		if len(items) == 0 {
			return nil, failf("No pods in namespace %s matched selector %s", pyStr(namespace), selector)
		}
		name = value.Str(field(items[0], "metadata", "name"))
		res = pods
	}
	if name == "" {
		// A subresource's URLs all name the object.
		return nil, failf("name must be provided for resources that do not support namespaced base url")
	}
	q := url.Values{}
	if s := p.str("container"); s != "" {
		q.Set("container", s)
	}
	if s := p.str("since_seconds"); s != "" {
		q.Set("sinceSeconds", s)
	}
	if p.bool("previous") {
		q.Set("previous", "true")
	}
	if n := p.int("tail_lines"); n != 0 {
		q.Set("tailLines", strconv.Itoa(n))
	}
	containers := []string{""}
	if p.bool("all_containers") {
		got, err := c.do(ctx, request{verb: "GET", path: res.path(name, namespace)})
		if err != nil {
			return nil, failf("Unable to retrieve log from Pod due to: %s", exceptionMessage(err))
		}
		statuses, ok := field(got.obj, "status", "containerStatuses").([]any)
		if !ok {
			return nil, failf("Unable to retrieve log from Pod due to: 'NoneType' object is not iterable")
		}
		containers = containers[:0]
		for _, s := range statuses {
			containers = append(containers, value.Str(field(s, "name")))
		}
	}
	var log strings.Builder
	for _, ctr := range containers {
		if ctr != "" {
			q.Set("container", ctr)
		}
		text, err := c.readLog(ctx, res.path(name, namespace)+"/log", q, maxStreamBytes-log.Len())
		if err != nil {
			var tl *errTooLarge
			if errors.As(err, &tl) {
				return nil, failf("Unable to retrieve log from Pod due to: %s", err)
			}
			if errCode(err) == 404 {
				return nil, failf("Pod %s/%s not found.", pyStr(namespace), name)
			}
			return nil, failf("Unable to retrieve log from Pod due to: %s", exceptionMessage(err))
		}
		log.WriteString(text)
	}
	s := log.String()
	if !utf8.ValidString(s) {
		return nil, errors.New("UnicodeDecodeError: 'utf-8' codec can't decode the log: invalid UTF-8")
	}
	lines := []any{}
	for _, l := range strings.Split(s, "\n") {
		lines = append(lines, l)
	}
	return value.DictOf("changed", false, "log", s, "log_lines", lines), nil
}

// readLog reads a log subresource, at most limit bytes.
func (c *Clients) readLog(ctx context.Context, path string, q url.Values, limit int) (string, error) {
	rq := c.raw.Get().AbsPath(path)
	for k, vs := range q {
		for _, v := range vs {
			rq = rq.Param(k, v)
		}
	}
	rc, err := rq.Stream(ctx)
	if err != nil {
		var se *apierrors.StatusError
		if errors.As(err, &se) {
			return "", &apiError{code: int(se.ErrStatus.Code), body: []byte(value.JSON(value.DictOf("message", se.ErrStatus.Message), value.JSONOptions{})), err: err}
		}
		return "", &apiError{err: err}
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, int64(limit)+1))
	if err != nil {
		return "", &apiError{err: err}
	}
	if len(data) > limit {
		return "", &errTooLarge{what: "log"}
	}
	return string(data), nil
}

// exceptionMessage is kubernetes.core's get_exception_message: the
// message of the JSON Status body, else the exception's text.
func exceptionMessage(err error) string {
	var ae *apiError
	if errors.As(err, &ae) && len(ae.body) > 0 {
		if obj, derr := value.DecodeJSON(ae.body); derr == nil {
			if m, ok := field(obj, "message").(string); ok {
				return m
			}
		}
	}
	return typedAPIException(err)
}

// dynamicErrorName is the class of the Python dynamic client's
// exception for an API error.
func dynamicErrorName(err error) string {
	switch errCode(err) {
	case 400:
		return "BadRequestError"
	case 401:
		return "UnauthorizedError"
	case 403:
		return "ForbiddenError"
	case 404:
		return "NotFoundError"
	case 409:
		return "ConflictError"
	case 422:
		return "UnprocessibleEntityError"
	}
	return "DynamicApiError"
}

// pyStr is how Python formats an optional string: None when unset.
func pyStr(s string) string {
	if s == "" {
		return "None"
	}
	return s
}

// noMatch is kubernetes.core's find_resource failure.
func noMatch(apiVersion, kind string, err error) *module.Failure {
	msg := "Failed to find exact match for " + apiVersion + "." + kind + " by [kind, name, singularName, shortNames]"
	if err != nil {
		return failWith(msg, err)
	}
	return failf("%s", msg)
}

// extractSelectors is kubernetes.core's extract_selectors: the label
// selector of an object's spec.selector, as selector strings.
func extractSelectors(obj any) ([]string, error) {
	sel, ok := field(obj, "spec", "selector").(*value.Dict)
	if !ok || sel.Len() == 0 {
		// kubernetes.core's message is built with a wrong call to
		// str.join, which raises instead.
		return nil, errors.New("TypeError: str.join() takes exactly one argument (2 given)")
	}
	var out []string
	ml, hasML := sel.Get("matchLabels")
	me, hasME := sel.Get("matchExpressions")
	mlDict, _ := ml.(*value.Dict)
	meList, _ := me.([]any)
	if (!hasML || mlDict == nil || mlDict.Len() == 0) && (!hasME || len(meList) == 0) {
		// A plain key: value selector (DeploymentConfig's).
		sel.Each(func(k string, v any) bool {
			out = append(out, k+"="+value.Str(v))
			return true
		})
		return out, nil
	}
	if mlDict != nil {
		mlDict.Each(func(k string, v any) bool {
			out = append(out, k+"="+value.Str(v))
			return true
		})
	}
	for _, e := range meList {
		key := value.Str(field(e, "key"))
		switch op := value.Str(field(e, "operator")); op {
		case "Exists":
			out = append(out, key)
		case "DoesNotExist":
			out = append(out, "!"+key)
		case "In", "NotIn":
			var vals []string
			l, _ := field(e, "values").([]any)
			for _, v := range l {
				vals = append(vals, value.Str(v))
			}
			out = append(out, fmt.Sprintf("%s %s (%s)", key, strings.ToLower(op), strings.Join(vals, ", ")))
		default:
			return nil, failf("The k8s_log module does not support the %s matchExpression operator", strings.ToLower(op))
		}
	}
	return out, nil
}
