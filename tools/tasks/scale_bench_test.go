package tasks

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
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
// PostgreSQL runs when ASSISTANT_TEST_POSTGRES is set, up to 100k (its 1M
// seeding takes minutes: set ASSISTANT_SCALE_PG_1M=1 for it).

var scaleNow = time.Date(2026, 11, 30, 8, 0, 0, 0, time.UTC)

type scaleSize struct {
	name        string
	own, others int // open tasks of the person listed, and of the 999 others
}

var scaleSizes = []scaleSize{{"1k", 1000, 0}, {"10k", 10000, 0}, {"100k", 100000, 0}, {"1M", 100000, 900000}}

// scaleFiles are the SQLite files seeded once per process, by size.
var (
	scaleMu    sync.Mutex
	scaleFiles = map[string]string{}
	scaleDir   string
)

// seedScale seeds the person "ada" (Europe/Paris) with sz.own open tasks
// and, when sz.others > 0, 999 more people sharing sz.others.
func seedScale(ctx context.Context, s *store.Store, sz scaleSize) (tools.Person, error) {
	p, err := s.EnsurePerson(ctx, "ada", "Europe/Paris")
	if err != nil {
		return tools.Person{}, err
	}
	if err := tooltest.SeedTasks(ctx, s, p.ID, p.Zone, sz.own, 0, scaleNow); err != nil {
		return tools.Person{}, err
	}
	if sz.others > 0 {
		each := sz.others / 999
		for i := range 999 {
			o, err := s.EnsurePerson(ctx, fmt.Sprintf("p%03d", i), []string{"Asia/Tokyo", "America/New_York", "UTC"}[i%3])
			if err != nil {
				return tools.Person{}, err
			}
			n := each
			if i == 998 {
				n = sz.others - each*998
			}
			if err := tooltest.SeedTasks(ctx, s, o.ID, o.Zone, n, i*each, scaleNow); err != nil {
				return tools.Person{}, err
			}
		}
	}
	return tools.Person{ID: p.ID, Name: p.Name, Zone: tz.MustZone(p.Zone)}, nil
}

// scaleEnv is a store seeded at sz for b's engine and a registry of the
// task tools: on SQLite a file seeded once per process and opened again
// for each benchmark, on PostgreSQL a database seeded for b.
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
	if storetest.Engine(b) == storetest.Postgres {
		if sz.others > 0 && os.Getenv("ASSISTANT_SCALE_PG_1M") == "" {
			b.Skip("seeding 1M rows on PostgreSQL takes minutes: set ASSISTANT_SCALE_PG_1M=1")
		}
		s, err := store.Open(ctx, tooltest.Location(b), opts)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		env.Store = s
		p, err := seedScale(ctx, s, sz)
		if err != nil {
			b.Fatal(err)
		}
		return env, p
	}
	scaleMu.Lock()
	defer scaleMu.Unlock()
	path, ok := scaleFiles[sz.name]
	if !ok {
		if scaleDir == "" {
			d, err := os.MkdirTemp("", "assistant-scale-")
			if err != nil {
				b.Fatal(err)
			}
			scaleDir = d
		}
		path = filepath.Join(scaleDir, sz.name+".db")
		s, err := store.Open(ctx, path, nil)
		if err != nil {
			b.Fatal(err)
		}
		_, err = seedScale(ctx, s, sz)
		s.Close()
		if err != nil {
			b.Fatal(err)
		}
		scaleFiles[sz.name] = path
	}
	s, err := store.Open(ctx, path, opts)
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

func TestMain(m *testing.M) {
	code := m.Run()
	if scaleDir != "" {
		os.RemoveAll(scaleDir)
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
