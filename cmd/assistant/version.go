package main

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/assistant-dev/assistant/migrations"
	"github.com/assistant-dev/assistant/store"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise the module version or VCS revision Go recorded is shown.
var version = ""

func versionString() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			return "(devel) " + s.Value[:12]
		}
	}
	return "(devel)"
}

// knownSchema is the highest migration number embedded in this binary,
// read from the file names (00003_events.sql → 3) so that `version` needs
// no database.
func knownSchema() int64 {
	var max int64
	entries, _ := fs.ReadDir(migrations.SQLite, ".")
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if !ok {
			continue
		}
		if n, err := strconv.ParseInt(num, 10, 64); err == nil && n > max {
			max = n
		}
	}
	return max
}

func newVersionCmd(a *app) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, the schema version and where the data lives",
		Long: `Print the version of this assistant, the schema version of the database and
the highest this build knows, and the files (or the PostgreSQL database)
it uses. It never creates or migrates the database; a PostgreSQL URL is
shown without its password.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			a.printf("assistant %s (%s, %s/%s)\n", versionString(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			schema := "not created yet"
			engine, file, _ := store.ParseLocation(a.dbPath) // configure checked it
			_, statErr := os.Stat(file)
			if engine == store.Postgres || statErr == nil {
				st, err := a.openStore(cmd.Context(), true)
				if err != nil {
					schema = "unreadable: " + errors.Unwrap(err).Error()
				} else {
					s, err := st.Status(cmd.Context())
					st.Close()
					if err != nil {
						schema = "unreadable: " + err.Error()
					} else {
						schema = strconv.FormatInt(s.Current, 10)
					}
				}
			}
			a.printf("schema:   %s (this build knows up to %d)\n", schema, knownSchema())
			a.printf("database: %s\n", store.Redact(a.dbPath))
			conf := a.configPath
			if _, err := os.Stat(conf); err != nil {
				conf += " (none)"
			}
			a.printf("config:   %s\n", conf)
			return nil
		},
	}
}
