package tasks

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/assistant-dev/assistant/store"
	"github.com/assistant-dev/assistant/store/storetest"
	"github.com/assistant-dev/assistant/tools"
	"github.com/assistant-dev/assistant/tools/changes"
	"github.com/assistant-dev/assistant/tools/tooltest"
	"github.com/assistant-dev/assistant/tz"
)

// The scale figures of list_tasks (docs/scale.md):
//
//	go test ./tools/tasks -run '^$' -bench 'ScaleListTasks' -count 6
//
// rows=N is the open tasks of the person listed; rows=1M is 1,000,000
// open tasks spread over 1,000 people, the person listed holding 100,000
// of them (the 1M figure). Sizes above 10k are skipped under -short;
// PostgreSQL runs when ASSISTANT_TEST_POSTGRES is set.

var scaleNow = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

type scaleSize struct {
	name        string
	own, others int // open tasks of the person listed, and of the 999 others
}

var scaleSizes = []scaleSize{{"1k", 1000, 0}, {"10k", 10000, 0}, {"100k", 100000, 0}, {"1M", 100000, 900000}}

// scaleLocs are the databases seeded once per process, by engine and
// size; scaleDir holds the SQLite files, scaleDrop drops the PostgreSQL
// databases.
var (
	scaleMu   sync.Mutex
	scaleLocs = map[string]string{}
	scaleDir  string
	scaleDrop []func()
)

// seedScale seeds the person "ada" (Europe/Paris) with sz.own open tasks
// and, when sz.others > 0, 999 more people sharing sz.others, in one
// tooltest.SeedTaskSets.
func seedScale(ctx context.Context, s *store.Store, sz scaleSize) error {
	p, err := s.EnsurePerson(ctx, "ada", "Europe/Paris")
	if err != nil {
		return err
	}
	sets := []tooltest.TaskSet{{Owner: p.ID, Zone: p.Zone, N: sz.own}}
	if sz.others > 0 {
		each := sz.others / 999
		for i := range 999 {
			o, err := s.EnsurePerson(ctx, fmt.Sprintf("p%03d", i), []string{"Asia/Tokyo", "America/New_York", "UTC"}[i%3])
			if err != nil {
				return err
			}
			n := each
			if i == 998 {
				n = sz.others - each*998
			}
			sets = append(sets, tooltest.TaskSet{Owner: o.ID, Zone: o.Zone, N: n, First: i * each})
		}
	}
	return tooltest.SeedTaskSets(ctx, s, scaleNow, sets...)
}

// scaleEnv is a store seeded at sz for b's engine and a registry of the
// task tools: a database (a SQLite file, a PostgreSQL database) seeded
// once per process and engine, opened again for each benchmark.
func scaleEnv(b *testing.B, sz scaleSize) (*tooltest.Env, tools.Person) {
	b.Helper()
	if testing.Short() && sz.own+sz.others > 10000 {
		b.Skip("above 10k rows: skipped under -short")
	}
	ctx := context.Background()
	env := &tooltest.Env{Ctx: ctx, Reg: tools.NewRegistry(), Now: scaleNow}
	Register(env.Reg)
	changes.Register(env.Reg)
	opts := &store.Options{Now: func() time.Time { return env.Now }}
	engine := storetest.Engine(b)
	scaleMu.Lock()
	defer scaleMu.Unlock()
	key := engine + "/" + sz.name
	loc, ok := scaleLocs[key]
	if !ok {
		loc = newScaleLocation(b, engine, sz.name)
		s, err := store.Open(ctx, loc, nil)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		err = seedScale(ctx, s, sz)
		s.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.Logf("seeded %s on %s in %v", sz.name, engine, time.Since(start).Round(time.Millisecond))
		scaleLocs[key] = loc
	}
	s, err := store.Open(ctx, loc, opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	env.Store = s
	p, err := s.PersonByName(ctx, "ada")
	if err != nil {
		b.Fatal(err)
	}
	return env, tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)}
}

// newScaleLocation makes an empty database of engine for size that lives
// until the process ends (TestMain removes it).
func newScaleLocation(b *testing.B, engine, size string) string {
	if engine == storetest.Postgres {
		server := storetest.PostgresDSN(b)
		admin, err := sql.Open("pgx", server)
		if err != nil {
			b.Fatal(err)
		}
		name := fmt.Sprintf("t_scale_tasks_%s_%d", strings.ToLower(size), rand.Uint32())
		if _, err := admin.Exec(`CREATE DATABASE ` + name); err != nil {
			admin.Close()
			b.Fatal(err)
		}
		scaleDrop = append(scaleDrop, func() {
			_, _ = admin.Exec(`DROP DATABASE IF EXISTS ` + name + ` WITH (FORCE)`)
			admin.Close()
		})
		u, err := url.Parse(server)
		if err != nil {
			b.Fatal(err)
		}
		u.Path = "/" + name
		return u.String()
	}
	if scaleDir == "" {
		d, err := os.MkdirTemp("", "assistant-scale-")
		if err != nil {
			b.Fatal(err)
		}
		scaleDir = d
	}
	return filepath.Join(scaleDir, size+".db")
}

func TestMain(m *testing.M) {
	code := m.Run()
	if scaleDir != "" {
		os.RemoveAll(scaleDir)
	}
	for _, drop := range scaleDrop {
		drop()
	}
	os.Exit(code)
}

// scaleBench runs list_tasks with raw at every size on every engine.
func scaleBench(b *testing.B, raw string) {
	for _, engine := range []string{storetest.SQLite, storetest.Postgres} {
		for _, sz := range scaleSizes {
			b.Run(engine+"/rows="+sz.name, func(b *testing.B) {
				if engine == storetest.Postgres {
					storetest.SkipUnlessPostgres(b)
				}
				env, p := scaleEnv(b, sz)
				b.ReportAllocs()
				for b.Loop() {
					if res, _ := env.Call(p, "list_tasks", raw); !res.OK() {
						b.Fatal(res.TextOut())
					}
				}
			})
		}
	}
}

// BenchmarkScaleListTasks is list_tasks' first page of 50 open tasks.
func BenchmarkScaleListTasks(b *testing.B) { scaleBench(b, `{"limit":50}`) }

// BenchmarkScaleListTasksQuery is list_tasks with a text query (read as
// "number 777", trimmed) that 1, 11 and 111 of the person's tasks hold at
// 1k, 10k and 100k+, through the trigram index; most of its trigrams
// ("num", "ber") are in every title of the database, which is what the
// index pays for at 1M.
func BenchmarkScaleListTasksQuery(b *testing.B) { scaleBench(b, `{"limit":50,"query":"number 777 "}`) }

// BenchmarkScaleListTasksTag is list_tasks with a tag no task has ("cafe":
// the seeded tag is “Café”, and tags keep their accents): a rare tag, read
// from task_tags.
func BenchmarkScaleListTasksTag(b *testing.B) { scaleBench(b, `{"limit":50,"tag":"cafe"}`) }
