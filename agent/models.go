package agent

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
)

// ProbeTimeout bounds the one GET {base}/models an Agent makes (for
// Probe, ChooseModel, and the sentence of an unknown model): long enough for a local server on a loaded machine,
// short enough that a chat never seems to hang before its prompt.
const ProbeTimeout = 2 * time.Second

// MaxStepsLimit is the most model requests per turn a front should let a
// person ask for (--max-steps): a loop that long is a model going round in
// circles, and each step costs a request.
const MaxStepsLimit = 100

// checkBaseURL refuses a base URL the HTTP client could only retry in
// vain: one without an http or https scheme ("localhost:9901" parses as
// scheme "localhost") or without a host.
func checkBaseURL(raw string) error {
	u, err := url.Parse(raw)
	if err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
		return nil
	}
	example := "http://localhost:8080/v1"
	if !strings.Contains(raw, "://") && !strings.ContainsAny(raw, " \t") {
		example = "http://" + raw
		if !strings.HasSuffix(example, "/v1") {
			example += "/v1"
		}
	}
	return &Error{Kind: KindSetup, Err: err,
		Sentence: fmt.Sprintf("The base URL “%s” must start with http:// or https://, such as %s; fix --base-url or OPENAI_BASE_URL.", raw, example)}
}

// isOpenAI reports whether the base URL is OpenAI's own API, whose model
// list holds dozens of models that cannot call tools, so no model is
// picked from it.
func (a *Agent) isOpenAI() bool {
	u, err := url.Parse(a.baseURL)
	return err == nil && strings.EqualFold(u.Hostname(), "api.openai.com")
}

// Models returns the ids of the models the server lists at GET
// {base}/models, in the server's order. The request is bounded by
// ProbeTimeout and made once per Agent: its answer, or its failure, is
// kept, and later calls (the sentence of an unknown-model error) reuse it,
// unless the caller's ctx ended first. Errors are go-openai's (an HTTP
// status) or the transport's, unexplained.
func (a *Agent) Models(ctx context.Context) ([]string, error) {
	a.mu.Lock()
	if a.listed {
		defer a.mu.Unlock()
		return a.models, a.listErr
	}
	a.mu.Unlock()
	lctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	list, err := a.client.ListModels(lctx)
	if err != nil {
		if ctx.Err() == nil {
			a.mu.Lock()
			a.listErr, a.listed = err, true
			a.mu.Unlock()
		}
		return nil, err
	}
	var ids []string
	for _, m := range list.Models {
		if id := strings.TrimSpace(m.ID); id != "" {
			ids = append(ids, id)
		}
	}
	a.mu.Lock()
	a.models, a.listed = ids, true
	a.mu.Unlock()
	return ids, nil
}

// Probe checks, before the first Turn, that a model server answers, with
// one quick GET {base}/models (ProbeTimeout). It is meant for an
// interactive chat, which should not show its prompt when no server is
// behind it.
//
// Errors (*Error): KindUnreachable with the same sentence a Turn gives
// when nothing listens at a local base URL (on a remote one a refusal may
// pass, so the Turn's retries decide); KindNotFound when the default
// Ollama is running but the default model is not pulled. Any HTTP answer,
// 404 and 401 included (some servers serve no model list, or want the key
// only for chat), lets the chat go on, as does a timeout. When no model
// was named it also picks one as ChooseModel does; note is then the
// sentence to show the person, else "".
func (a *Agent) Probe(ctx context.Context) (note string, err error) {
	return a.prepare(ctx, true)
}

// ChooseModel picks the model from the server's list when none was named
// (Config.Model empty) and the server is neither OpenAI's nor the default
// Ollama: with one model listed it is used; with several the first is
// used and note names it and the others; with none, or no list (HTTP
// error, no such endpoint), the default model stays. It makes no request
// when there is nothing to choose. Call it before the first Turn; it
// changes what Model returns. The error is Probe's KindUnreachable one,
// for nothing listening at a local address.
func (a *Agent) ChooseModel(ctx context.Context) (note string, err error) {
	return a.prepare(ctx, false)
}

// mustChoose reports whether the model is to be taken from the server's
// list: none was named, and the server is one whose list is its loaded
// models (llama.cpp, vLLM, LM Studio, an Ollama named by URL).
func (a *Agent) mustChoose() bool {
	return !a.named && !a.local && !a.isOpenAI()
}

func (a *Agent) prepare(ctx context.Context, always bool) (string, error) {
	choose := a.mustChoose()
	if !always && !choose {
		return "", nil
	}
	ids, err := a.Models(ctx)
	if err != nil {
		if ctx.Err() == nil && isNoServer(err) && a.localServer() {
			return "", &Error{Kind: KindUnreachable, Err: err, Sentence: a.unreachableSentence()}
		}
		a.log.Debug("no model list", "base_url", a.baseURL, "err", err)
		return "", nil
	}
	switch {
	case choose && len(ids) == 1:
		a.cfg.Model = ids[0]
	case choose && len(ids) > 1:
		a.cfg.Model = ids[0]
		return fmt.Sprintf("Using the model “%s”, the first of the %d the server at %s lists (%s); name another with --model or ASSISTANT_MODEL.",
			ids[0], len(ids), a.baseURL, listNames(ids[1:])), nil
	case a.local && !hasModel(ids, a.cfg.Model):
		return "", &Error{Kind: KindNotFound, Status: 404, Sentence: a.missingModelSentence(ids)}
	}
	return "", nil
}

// hasModel reports whether the list holds name; Ollama lists a model
// pulled without a tag as "name:latest", which is what the bare name means.
func hasModel(ids []string, name string) bool {
	for _, id := range ids {
		if id == name || (!strings.Contains(name, ":") && id == name+":latest") {
			return true
		}
	}
	return false
}

// listNames joins model ids for a sentence, at most eight of them.
func listNames(ids []string) string {
	const most = 8
	if len(ids) <= most {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:most], ", "), len(ids)-most)
}

// missingModelSentence says that the server does not have the model, with
// the models it does list (ids), and how to pick or fetch one.
func (a *Agent) missingModelSentence(ids []string) string {
	has := "it lists no models"
	if len(ids) > 0 {
		has = "it has " + listNames(ids)
	}
	if a.local {
		return fmt.Sprintf("Ollama at %s does not have the model “%s” (%s): fetch it with `ollama pull %s`, or name one it has with --model or ASSISTANT_MODEL.",
			a.baseURL, a.cfg.Model, has, a.cfg.Model)
	}
	return fmt.Sprintf("The model server at %s does not know the model “%s” (HTTP 404; %s): name one it has with --model or ASSISTANT_MODEL.",
		a.baseURL, a.cfg.Model, has)
}

// explainNotFound rewrites the sentence of a 404 from a chat request to
// name the models the server lists, asking for the list when it was not
// fetched yet. Without a list (the base URL may lack /v1) the sentence
// stays as it was.
func (a *Agent) explainNotFound(ctx context.Context, err error) error {
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindNotFound || ctx.Err() != nil {
		return err
	}
	ids, lerr := a.Models(ctx)
	if lerr != nil || hasModel(ids, a.cfg.Model) {
		return err
	}
	return &Error{Kind: KindNotFound, Status: e.Status, Err: e.Err, Sentence: a.missingModelSentence(ids)}
}
