package main

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/knadh/koanf/parsers/toml/v2"
	"github.com/knadh/koanf/providers/file"
	"github.com/knadh/koanf/v2"
	gotoml "github.com/pelletier/go-toml/v2"
	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/catalog"
	"github.com/assistant-dev/assistant/tz"
)

// Environment variables the binary reads. Flags win over them, and they win
// over the config file.
const (
	envDB      = "ASSISTANT_DB"     // the database: a file, or a postgres:// URL (--db)
	envPerson  = "ASSISTANT_PERSON" // who commands act as (--person)
	envTZ      = "ASSISTANT_TZ"     // the zone for this run only (--tz)
	envNow     = "ASSISTANT_NOW"    // a fixed clock, RFC 3339, for tests and demos
	envConfig  = "ASSISTANT_CONFIG" // the config file (--config)
	envLog     = "ASSISTANT_LOG"    // the log level (--log-level)
	envModel   = "ASSISTANT_MODEL"  // chat: the model name (--model)
	envBaseURL = "OPENAI_BASE_URL"  // chat: an OpenAI-compatible endpoint (--base-url)
	envAPIKey  = "OPENAI_API_KEY"   // chat: the endpoint's key
	envUser    = "USER"             // the local person's name when the config names none
	envSysTZ   = "TZ"               // the local person's zone on first run when the config names none
)

// envHistoryBudget is chat's most history sent with one request, in
// characters (--history-budget); like the others, the flag wins over it and
// it wins over the config file.
const envHistoryBudget = "ASSISTANT_HISTORY_BUDGET"

// envChatTools chooses the tools the chat offers its model (--tools): a
// comma-separated list of groups (all, tasks, calendar, read-only) and
// tool names. It is the chat's alone; `assistant mcp` takes --tools only.
const envChatTools = "ASSISTANT_CHAT_TOOLS"

// configKeys are the keys the config file may hold; any other is reported
// once as a warning (a typo should not pass silently, and a newer file
// should still work with an older binary).
var configKeys = []string{
	"db", "person", "zone", "log_level",
	"chat.model", "chat.base_url", "chat.api_key", "chat.history_budget", "chat.tools",
	"remind.smtp", "remind.smtp_from", "remind.smtp_to", "remind.smtp_tls", "remind.smtp_user", "remind.smtp_password",
}

// globalFlags are the raw values of the root command's persistent flags.
type globalFlags struct {
	db, person, tz, logLevel, config string
	dbReadOnly                       bool
}

// app is what every command shares: the resolved settings, the logger, the
// clock and the standard streams. It is built once per run by
// PersistentPreRunE; the store is opened only by commands that need it.
type app struct {
	flags globalFlags
	root  *cobra.Command

	stdin          io.Reader
	stdout, stderr io.Writer

	// Settings after precedence (flag, environment, config file, default).
	dbPath     string
	dbFlag     bool   // dbPath came from --db, so a command to run next must name it too
	dbFrom     string // where dbPath came from, as a sentence names it ("the default" when nothing named it)
	personName string // who commands act as
	personSet  bool   // chosen by --person or ASSISTANT_PERSON, not the local person
	localName  string // the local person, created on first run
	localZone  string // the local person's zone on first run
	tzOverride string // --tz / ASSISTANT_TZ: the zone for this run only, never stored
	logLevel   slog.Level
	configPath string
	conf       *koanf.Koanf // the config file's values; empty when there is none

	now      func() time.Time // ASSISTANT_NOW or the wall clock
	fixedNow bool
	log      *slog.Logger

	opened *store.Store // the store openStore opened last, so execute can explain its errors

	// service is set by the commands that run until stopped (the remind
	// loop, serve, mcp): for them a SIGINT or SIGTERM is the normal end,
	// exit 0 at whatever step it comes, even while the store opens.
	service bool
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr, now: time.Now, conf: koanf.New(".")}
	a.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	return a
}

// setting returns the first of: the flag's value when it was given on the
// command line, the environment variable, the config file's key, def.
func (a *app) setting(cmd *cobra.Command, flag, env, key, def string) string {
	v, _ := a.settingFrom(cmd, flag, env, key, def)
	return v
}

// settingFrom is setting with where the value came from, as a sentence
// about a wrong value names it: "“--log-level”", "ASSISTANT_LOG",
// "“log_level” in the config file “/home/ann/.config/assistant/config.toml”",
// or "the default".
func (a *app) settingFrom(cmd *cobra.Command, flag, env, key, def string) (value, from string) {
	if flag != "" && cmd != nil {
		if f := cmd.Flags().Lookup(flag); f != nil && f.Changed {
			return f.Value.String(), "“--" + flag + "”"
		}
	}
	if env != "" {
		if v, ok := os.LookupEnv(env); ok && v != "" {
			return v, env
		}
	}
	if key != "" && a.conf.Exists(key) {
		return a.conf.String(key), "“" + key + "” in the config file “" + a.configPath + "”"
	}
	return def, "the default"
}

// configFile is where the config file is looked for: --config,
// ASSISTANT_CONFIG, then $XDG_CONFIG_HOME/assistant/config.toml
// (~/.config/assistant/config.toml when XDG_CONFIG_HOME is unset or not
// absolute, per the XDG Base Directory Specification). named reports
// whether the person named it, so a missing file is an error only then.
func (a *app) configFile(cmd *cobra.Command) (path string, named bool) {
	if p := a.setting(cmd, "config", envConfig, "", ""); p != "" {
		return p, true
	}
	base := os.Getenv("XDG_CONFIG_HOME")
	if base == "" || !filepath.IsAbs(base) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		base = filepath.Join(home, ".config")
	}
	return filepath.Join(base, "assistant", "config.toml"), false
}

// configure resolves every setting. It runs before each command; it reads
// the config file but opens nothing else, so `--help`, `tools` and
// `completion` work without a database.
func (a *app) configure(cmd *cobra.Command) error {
	path, named := a.configFile(cmd)
	a.configPath = path
	if path != "" {
		if _, err := os.Stat(path); err == nil || named {
			if err := a.conf.Load(file.Provider(path), toml.Parser()); err != nil {
				return configError(path, err)
			}
		}
	}

	level, from := a.settingFrom(cmd, "log-level", envLog, "log_level", "info")
	if err := a.logLevel.UnmarshalText([]byte(level)); err != nil {
		return failf(exitConfig, "%s must be debug, info, warn or error, not “%s”", from, level)
	}
	a.log = slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: a.logLevel}))
	slog.SetDefault(a.log)
	for _, k := range a.conf.Keys() {
		if !slices.Contains(configKeys, k) {
			a.log.Warn("unknown key in the config file, ignored", "key", k, "file", path, "known", strings.Join(configKeys, ", "))
		}
	}

	if v, ok := os.LookupEnv(envNow); ok && v != "" {
		t, err := time.Parse(time.RFC3339, v)
		if err != nil {
			return failf(exitConfig, "“%s” must be an RFC 3339 instant such as 2026-10-05T09:00:00+02:00, not “%s”", envNow, v)
		}
		a.now, a.fixedNow = func() time.Time { return t }, true
	}

	def, err := store.DefaultPath()
	if err != nil {
		def = ""
	}
	var dbFrom string
	a.dbPath, dbFrom = a.settingFrom(cmd, "db", envDB, "db", def)
	a.dbFlag = dbFrom == "“--db”"
	a.dbFrom = dbFrom
	if strings.TrimSpace(a.dbPath) == "" {
		if dbFrom != "the default" {
			return failf(exitConfig, "%s is empty; give a file path or a postgres:// URL, or leave it out for the default database", dbFrom)
		}
		return fail(exitConfig, err)
	}
	// The location goes to store.Open as it was given (a path, file:, or a
	// postgres:// URL); one no engine takes is a wrong setting, said once
	// here for every command that would open it.
	if _, _, err := store.ParseLocation(a.dbPath); err != nil {
		return failf(exitConfig, "%s is wrong: %v", dbFrom, err)
	}

	a.localName = a.setting(nil, "", "", "person", "")
	if a.localName == "" {
		a.localName = strings.TrimSpace(os.Getenv(envUser))
	}
	if a.localName == "" {
		a.localName = "me"
	}
	a.personName = a.setting(cmd, "person", envPerson, "", "")
	a.personSet = a.personName != "" && a.personName != a.localName
	if a.personName == "" {
		a.personName = a.localName
	}

	a.localZone, err = a.firstRunZone()
	if err != nil {
		return err
	}
	a.tzOverride, from = a.settingFrom(cmd, "tz", envTZ, "", "")
	if a.tzOverride != "" {
		z, err := tz.LoadZoneLoose(a.tzOverride)
		if err != nil {
			return failf(exitConfig, "%s is wrong: %v", from, zoneHome(err, a.localZone))
		}
		a.tzOverride = z.Name()
	}
	return nil
}

// zoneHome gives a zone error the person's zone (an IANA name, "" for
// none), which its sentence lists first when the rejected name is a time
// zone abbreviation that zone uses ("CEST" for Europe/Paris).
func zoneHome(err error, home string) error {
	var ze *tz.ZoneError
	if errors.As(err, &ze) && home != "" {
		if z, zerr := tz.LoadZone(home); zerr == nil {
			ze.Home = z
		}
	}
	return err
}

// configError is the sentence of a config file that cannot be loaded: a
// TOML syntax error names the file, line and column, and a bare word where
// text belongs (person = alice, the commonest slip) is shown quoted.
func configError(path string, err error) error {
	var de *gotoml.DecodeError
	if errors.As(err, &de) {
		row, col := de.Position()
		if key, value, ok := bareText(path, row); ok {
			return failf(exitConfig, "the config file “%s” is not valid TOML at line %d: text needs double quotes, so write %s = \"%s\"",
				path, row, key, value)
		}
		return failf(exitConfig, "the config file “%s” is not valid TOML at line %d, column %d: %s; fix it or name another with --config",
			path, row, col, strings.TrimPrefix(de.Error(), "toml: "))
	}
	return failf(exitConfig, "cannot read the config file “%s”: %s; fix it or name another with --config",
		path, strings.TrimPrefix(cleanErr(err).Error(), "toml: "))
}

// bareText reports whether line row (from 1) of the file is key = value
// with a value that is no TOML value but reads as unquoted text: not a
// quoted string, array, table, boolean or number.
func bareText(path string, row int) (key, value string, ok bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", false
	}
	lines := strings.Split(string(b), "\n")
	if row < 1 || row > len(lines) {
		return "", "", false
	}
	key, value, found := strings.Cut(lines[row-1], "=")
	key, value = strings.TrimSpace(key), strings.TrimSpace(value)
	if !found || key == "" || value == "" || strings.ContainsAny(value[:1], "\"'[{+-0123456789") ||
		value == "true" || value == "false" || strings.ContainsAny(value, "\"#") {
		return "", "", false
	}
	return key, value, true
}

// cleanErr drops the wrapping a library adds in front of a parse error.
func cleanErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// firstRunZone is the zone the local person gets when their row is made:
// the config's zone, then TZ, then the system's zone, then UTC
// (docs/configuration.md, "The local person").
func (a *app) firstRunZone() (string, error) {
	if z := a.setting(nil, "", "", "zone", ""); z != "" {
		zone, err := tz.LoadZoneLoose(z)
		if err != nil {
			return "", failf(exitConfig, "“zone” in the config file “%s” is wrong: %v", a.configPath, zoneHome(err, systemZone()))
		}
		return zone.Name(), nil
	}
	if z := strings.TrimPrefix(os.Getenv(envSysTZ), ":"); z != "" {
		if zone, err := tz.LoadZone(z); err == nil {
			return zone.Name(), nil
		}
		a.log.Warn("TZ is not an IANA zone name; using the system zone instead", "TZ", z)
	}
	if z := systemZone(); z != "" {
		return z, nil
	}
	return "UTC", nil
}

// systemZone reads the machine's IANA zone name: the target of the
// /etc/localtime link (…/zoneinfo/Europe/Paris), Debian's /etc/timezone,
// or the name Go gave time.Local; "" when none is a loadable IANA name.
func systemZone() string {
	var candidates []string
	if target, err := os.Readlink("/etc/localtime"); err == nil {
		if i := strings.Index(target, "zoneinfo/"); i >= 0 {
			candidates = append(candidates, target[i+len("zoneinfo/"):])
		}
	}
	if b, err := os.ReadFile("/etc/timezone"); err == nil {
		candidates = append(candidates, strings.TrimSpace(string(b)))
	}
	candidates = append(candidates, time.Local.String())
	for _, c := range candidates {
		if z, err := tz.LoadZone(c); err == nil {
			return z.Name()
		}
	}
	return ""
}

// useJSONLogs switches the logger to JSON lines on stderr, for the
// long-running modes (`mcp --http`, the `remind` loop) whose logs are read
// by journald or a collector rather than a person.
func (a *app) useJSONLogs() {
	a.log = slog.New(slog.NewJSONHandler(a.stderr, &slog.HandlerOptions{Level: a.logLevel}))
	slog.SetDefault(a.log)
}

// libraryLog is the logger handed to libraries (the MCP SDK): they report
// every connection at Info, which is noise on a terminal, so they get Warn
// and up unless the person asked for debug.
func (a *app) libraryLog() *slog.Logger {
	if a.logLevel <= slog.LevelDebug {
		return a.log
	}
	level := max(a.logLevel, slog.LevelWarn)
	if _, ok := a.log.Handler().(*slog.JSONHandler); ok {
		return slog.New(slog.NewJSONHandler(a.stderr, &slog.HandlerOptions{Level: level}))
	}
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: level}))
}

// openStore opens the database at the resolved location, unchanged (a
// SQLite path or file: URL, or a PostgreSQL URL), with the run's clock
// (for reading only with --db-read-only). A failure is exitDatabase with
// the store's sentence (a PostgreSQL server that refuses, a wrong
// password, no such database, a server too old, a newer schema), or
// exitConfig for a URL the store cannot read, or the code of a Trouble:
// exitDiskFull or exitReadOnly for a full disk or a file that cannot be
// written, exitUnavailable for a connection lost while it was opening.
func (a *app) openStore(ctx context.Context, noMigrate bool) (*store.Store, error) {
	// Only the default location may have its folder made: a folder
	// missing from a path someone wrote is a slip to point out, not a
	// wish for a new database somewhere unexpected.
	named := a.dbFrom != "" && a.dbFrom != "the default"
	st, err := store.Open(ctx, a.dbPath, &store.Options{NoMigrate: noMigrate, ReadOnly: a.flags.dbReadOnly, Now: a.now,
		NoMakeFolder: named})
	a.opened = st
	if err != nil {
		if ctx.Err() != nil { // a signal while it opened: a stop, not a broken database
			return nil, quietExit(exitCancelled)
		}
		if errors.Is(err, store.ErrNoFolder) {
			return nil, failf(exitConfig, "%s is wrong: %v", a.dbFrom, sentence(err, store.ErrNoFolder))
		}
		if code := troubleExit(store.TroubleOf(err)); code != 0 {
			return nil, fail(code, err)
		}
		if errors.Is(err, store.ErrInvalid) {
			return nil, fail(exitConfig, sentence(err, store.ErrInvalid))
		}
		if errors.Is(err, store.ErrUnavailable) {
			return nil, fail(exitDatabase, sentence(err, store.ErrUnavailable))
		}
		return nil, fail(exitDatabase, err)
	}
	return st, nil
}

// person returns who this run acts as: the person --person or
// ASSISTANT_PERSON names (who must exist), or the local person, made on
// first run with the first-run zone. --tz / ASSISTANT_TZ replaces the zone
// for this run; the stored zone is left as it is.
func (a *app) person(ctx context.Context, st *store.Store) (tools.Person, error) {
	fresh := false
	if !a.personSet {
		_, err := st.PersonByName(ctx, a.localName)
		fresh = errors.Is(err, store.ErrNotFound)
	}
	p, err := a.storePerson(ctx, st)
	if err != nil {
		return tools.Person{}, storeFail(err)
	}
	if fresh {
		a.log.Info("made the local person on first run; change the zone with `assistant person set-zone`", "person", p.Name, "zone", p.Zone)
	}
	zoneName := p.Zone
	if a.tzOverride != "" {
		zoneName = a.tzOverride
	}
	zone, err := tz.LoadZone(zoneName)
	if err != nil {
		return tools.Person{}, failf(exitInternal, "the stored zone of “%s” is not usable (%v); fix it with `assistant person set-zone %s Area/City`", p.Name, err, p.Name)
	}
	a.log.Debug("acting as", "person", p.Name, "id", p.ID, "zone", zone.Name(), "stored_zone", p.Zone)
	return tools.Person{ID: p.ID, Name: p.Name, Zone: zone}, nil
}

// session opens the store and resolves the person: what every command that
// runs tools as someone needs. The caller closes the store.
func (a *app) session(ctx context.Context) (*store.Store, tools.Person, error) {
	st, err := a.openStore(ctx, false)
	if err != nil {
		return nil, tools.Person{}, err
	}
	p, err := a.person(ctx, st)
	if err != nil {
		st.Close()
		return nil, tools.Person{}, err
	}
	return st, p, nil
}

// toolContext is the context for one person's calls: the person, the
// clock, the store, the person kept for the session (tools.Session: each
// call's first transaction checks that the stored zone is still the kept
// one, so a long session follows a set_time_zone or its undo) and the
// store's own wording of its failures. With --tz / ASSISTANT_TZ the run's
// zone stays the override. Fronts that serve several people (MCP over
// HTTP) build one per request with the token's person instead
// (requestContext).
func (a *app) toolContext(st *store.Store, p tools.Person) *tools.ToolContext {
	tc := a.requestContext(st, p)
	if a.tzOverride != "" {
		tools.Insert(tc, tools.PersonSource(func(context.Context) (tools.Person, error) { return p, nil }))
	} else {
		tools.InsertSession(tc, tools.NewSession(st, p))
	}
	return tc
}

// requestContext is toolContext without the PersonSource, for a context
// that lives one HTTP request: its person was read from the store by that
// request's token check, so reading them again before the call would only
// repeat the query.
func (a *app) requestContext(st *store.Store, p tools.Person) *tools.ToolContext {
	tc := &tools.ToolContext{}
	tools.Insert(tc, p)
	tools.Insert(tc, tools.Clock(a.now))
	tools.Insert(tc, st)
	tools.Insert(tc, tools.ExplainError(st.Explain))
	return tc
}

// chatSettings are the model endpoint settings of `chat`, after
// precedence: flags, ASSISTANT_MODEL / OPENAI_BASE_URL / OPENAI_API_KEY /
// ASSISTANT_HISTORY_BUDGET / ASSISTANT_CHAT_TOOLS, the config file's
// [chat] table. Empty (or 0 for HistoryBudget) means "let the agent
// choose" (a local Ollama with no key, agent.DefaultHistoryBudget).
type chatSettings struct {
	Model, BaseURL, APIKey string
	// HistoryBudget is the most history sent with one request, in
	// characters as agent.Config.Measure counts them by default; the system
	// prompt and the tools' schemas come on top.
	HistoryBudget int
	// Tools are the tools offered to the model, chosen by the names of
	// --tools (catalog.Select: groups such as tasks, or tool names); every
	// tool when none is set.
	Tools *tools.Registry
}

// chatSettings resolves the settings of `chat`; a history budget that is
// not a whole number above 0, or a tool choice catalog.Select refuses, is
// an error naming where it came from (exitConfig, like every other
// setting read with precedence).
func (a *app) chatSettings(cmd *cobra.Command) (chatSettings, error) {
	s := chatSettings{
		Model:   a.setting(cmd, "model", envModel, "chat.model", ""),
		BaseURL: a.setting(cmd, "base-url", envBaseURL, "chat.base_url", ""),
		APIKey:  a.setting(nil, "", envAPIKey, "chat.api_key", ""),
	}
	raw, from := a.settingFrom(cmd, "tools", envChatTools, "chat.tools", "")
	if strings.HasPrefix(from, "“chat.tools”") {
		switch v := a.conf.Get("chat.tools").(type) {
		case string:
		case []any:
			// tools = ["tasks", "undo"] reads as tools = "tasks,undo"
			names := make([]string, len(v))
			for i, item := range v {
				name, ok := item.(string)
				if !ok {
					return s, failf(exitConfig, "%s must list names as text, such as tools = [\"tasks\", \"undo\"]; item %d is not text", from, i+1)
				}
				names[i] = name
			}
			raw = strings.Join(names, ",")
		default:
			return s, failf(exitConfig, "%s must be names as text, such as tools = \"tasks\" or tools = [\"tasks\", \"undo\"]", from)
		}
	}
	if from == "“--tools”" {
		// --tools may be given more than once, as mcp's: the union
		list, _ := cmd.Flags().GetStringSlice("tools")
		raw = strings.Join(list, ",")
	}
	reg := newRegistry()
	reg.Log = a.log
	var err error
	if s.Tools, err = catalog.Select(reg, tools.SplitNames(raw), false); err != nil {
		return s, failf(exitConfig, "%s is wrong: %v", from, err)
	}
	raw, from = a.settingFrom(cmd, "history-budget", envHistoryBudget, "chat.history_budget", "")
	if raw == "" && from == "the default" {
		return s, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n < 1 {
		return s, failf(exitConfig, "%s must be a whole number of characters above 0, such as 8000, not “%s”", from, raw)
	}
	s.HistoryBudget = n
	return s, nil
}
