package instructor

import (
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// ladder classroom writes a GitHub Classroom autograding workflow: one
// step for each part of every level, each running the one command that
// grades a part (make test-level-N PART=K) through Classroom's command
// Grader, and a last step that reports the points to Classroom. The levels
// and parts come from the registry, and what a part needs beyond Go from
// its spec's list of cases, so the file is written again, never edited by
// hand, when a level or a part is added.

// ClassroomFile is where GitHub Classroom looks for its workflow.
const ClassroomFile = ".github/workflows/classroom.yml"

// The actions the workflow uses: GitHub's own, and GitHub Classroom's
// Grader and reporter, at the major versions their READMEs show.
const (
	checkoutAction = "actions/checkout@v4"
	setupGoAction  = "actions/setup-go@v5"
	graderAction   = "classroom-resources/autograding-command-grader@v1"
	reporterAction = "classroom-resources/autograding-grading-reporter@v1"
)

// PartPoints is what a part is worth. Every part counts the same: a part
// is the unit the ladder's own tools count ("12 of 27 parts done"), so a
// score in Classroom reads like the class report and make progress. A
// weight by the number of cases would pay for a table of boundary cases
// rather than for the work; an instructor who wants weights edits
// max-score in the file.
const PartPoints = 1

// partTimeout is a step's limit in minutes: go test's own, which the
// ladder sets. A first build of level 8 under the race detector takes a
// minute or two on a runner.
const partTimeout = 10

// RedisInstall puts redis-server on the runner. The Redis parts start
// servers of their own, through make test-level-8 REDIS=1, and some cases
// kill or pause one, so the program must be on the runner: a service
// container would give an address only. The runner's user is not root,
// hence sudo; where redis-server is already there, nothing is installed.
const RedisInstall = "command -v redis-server >/dev/null || (sudo apt-get update && sudo apt-get install -y redis-server)"

// gradedStep is one part of one level, as a step of the workflow.
type gradedStep struct {
	// ID is the step's id, letters and digits only ("level3part2"): the
	// reporter reads the result from the variable LEVEL3PART2_RESULTS,
	// and refuses a list of ids with anything else in it.
	ID      string
	Name    string // "Level 3, part 2: Time going backwards"
	Command string // "make test-level-3 PART=2"
	Points  int
}

// classroomPlan is what the workflow runs.
type classroomPlan struct {
	Steps []gradedStep
	// Redis says some part needs a real redis-server.
	Redis bool
}

// PlanClassroom makes a step of every part of the levels.
func PlanClassroom(root string, lvs []levels.Level) (classroomPlan, error) {
	var plan classroomPlan
	for _, l := range lvs {
		for _, p := range l.Parts {
			needs, err := moduleNeeds(root, l, l.ModuleOf(p.Number))
			if err != nil {
				return classroomPlan{}, err
			}
			cmd := fmt.Sprintf("make test-level-%d PART=%d", l.Number, p.Number)
			for _, n := range needs {
				switch n {
				case "redis-server":
					// Every case of the module runs on a real server as
					// well as on miniredis, and the cases that kill or
					// pause one run at all: without them part 8 is never
					// done. The flag covers the module's every part, as
					// make test-level-8 REDIS=1 does.
					cmd += " REDIS=1"
					plan.Redis = true
				default:
					return classroomPlan{}, fmt.Errorf("level %d, part %d needs %q, which the workflow cannot provide", l.Number, p.Number, n)
				}
			}
			plan.Steps = append(plan.Steps, gradedStep{
				ID:      fmt.Sprintf("level%dpart%d", l.Number, p.Number),
				Name:    fmt.Sprintf("Level %d, part %d: %s", l.Number, p.Number, p.Title),
				Command: cmd,
				Points:  PartPoints,
			})
		}
	}
	return plan, nil
}

// moduleNeeds lists what the cases of a module's spec need beyond Go
// ("redis-server"), from the spec's list of cases. A part is graded with
// what its module needs, so that its cases run as they do with the make
// target's flag for it.
func moduleNeeds(root string, l levels.Level, m levels.Module) ([]string, error) {
	man, err := protocol.ReadManifest(filepath.Join(root, filepath.FromSlash(l.SpecDir(m)), protocol.ManifestFile))
	if err != nil {
		return nil, fmt.Errorf("level %d: %w", l.Number, err)
	}
	var out []string
	for _, c := range man.Cases {
		if c.Needs != "" && !slices.Contains(out, c.Needs) {
			out = append(out, c.Needs)
		}
	}
	slices.Sort(out)
	return out, nil
}

// WriteClassroom writes the workflow. It is written as text, not through a
// YAML library, so that it keeps its comments and its order; every value
// that is not a fixed word is quoted (yamlQuote).
func WriteClassroom(w io.Writer, plan classroomPlan) error {
	total := 0
	for _, s := range plan.Steps {
		total += s.Points
	}
	var b strings.Builder
	fmt.Fprintf(&b, `# GitHub Classroom autograding for rateladder: one graded step for each
# part of every level, %s in all. Written by make classroom (ladder
# classroom) from the ladder's registry, harness/levels: write it again
# with make classroom FORCE=1 when a level or a part is added. To weigh
# the parts differently, change their max-score.
#
# Each step runs the command a student runs to grade a part on their own
# machine, so a failing step's log shows what to run. Classroom's grader
# runs it with a bare environment (PATH and HOME), in the repository's
# top folder, and a zero exit grants the points.
name: Autograding Tests
'on':
  - push
  - workflow_dispatch
  - repository_dispatch
permissions:
  checks: write
  actions: read
  contents: read
jobs:
  run-autograding-tests:
    runs-on: ubuntu-latest
    # Classroom's own commit, the assignment's first, is not graded.
    if: github.actor != 'github-classroom[bot]'
    steps:
      - name: Check out the code
        uses: %s
      - name: Set up Go
        uses: %s
        with:
          go-version-file: go.mod
          cache-dependency-path: '**/go.sum'
`, grade.Plural(total, "point"), checkoutAction, setupGoAction)
	if plan.Redis {
		fmt.Fprintf(&b, `      # The Redis parts start redis-servers of their own, and kill or pause
      # some, so they need the program on the runner, not a service
      # container's address. A failed install costs those parts only.
      - name: Install redis-server
        continue-on-error: true
        run: %s
`, yamlQuote(RedisInstall))
	}
	for _, s := range plan.Steps {
		fmt.Fprintf(&b, `      - name: %s
        id: %s
        uses: %s
        with:
          test-name: %s
          command: %s
          timeout: %d
          max-score: %d
`, yamlQuote(s.Name), s.ID, graderAction, yamlQuote(s.Name), yamlQuote(s.Command), partTimeout, s.Points)
	}
	fmt.Fprintf(&b, `      - name: Autograding Reporter
        uses: %s
        env:
`, reporterAction)
	var ids []string
	for _, s := range plan.Steps {
		fmt.Fprintf(&b, "          %s_RESULTS: \"${{ steps.%s.outputs.result }}\"\n", strings.ToUpper(s.ID), s.ID)
		ids = append(ids, s.ID)
	}
	fmt.Fprintf(&b, "        with:\n          runners: %s\n", strings.Join(ids, ","))
	_, err := io.WriteString(w, b.String())
	return err
}

// yamlQuote is s as a double-quoted YAML scalar: Go's quoting escapes only
// with \", \\ and the \a \n \xNN \uNNNN forms, which YAML reads alike.
func yamlQuote(s string) string { return strconv.Quote(s) }
