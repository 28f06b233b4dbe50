package instructor

import (
	_ "embed"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"text/template"

	"github.com/rateladder/rateladder/harness/internal/grade"
	"github.com/rateladder/rateladder/harness/levels"
	"github.com/rateladder/rateladder/harness/timeline/protocol"
)

// ladder classroom writes a GitHub Classroom workflow that runs the class
// report from the instructor's checkout, at a pinned commit, on the
// student's, then gives a step and a point to each part done.

// ClassroomFile is where GitHub Classroom looks for its workflow.
const ClassroomFile = ".github/workflows/classroom.yml"

// PartPoints is what a part is worth: every part counts the same, as in
// the class report and make progress.
const PartPoints = 1

// The folders of the two checkouts, and the results file with one line a
// part done.
const (
	InstructorDir = "instructor"
	StudentDir    = "student"
	DonePartsFile = "parts-done.txt"
)

// ClassroomGradeCommand grades the student's checkout with the class
// report (20 minutes for it: a runner has two cores), and writes the
// results file.
const ClassroomGradeCommand = "go run ./harness/cmd/ladder class-report --format parts --parallel 1 --timeout 20m ../" + StudentDir + " > ../" + DonePartsFile + " && cat ../" + DonePartsFile

// gradedStep is one part of one level, as a step of the workflow.
type gradedStep struct {
	ID   string // letters and digits only, as the reporter wants: "level3part2"
	Name string // "Level 3, part 2: Time going backwards"
}

// classroomPlan is what the workflow runs: the instructor's repository
// ("owner/name") at commit Ref, and whether a part needs redis-server.
type classroomPlan struct {
	Repo, Ref string
	Steps     []gradedStep
	Redis     bool
}

// PartID names a part in the workflow and in the results file.
func PartID(level, part int) string { return fmt.Sprintf("level%dpart%d", level, part) }

// repoRE and commitRE are what GitHub allows in owner/name, and a hash.
var (
	repoRE   = regexp.MustCompile(`^[A-Za-z0-9-]+/[A-Za-z0-9._-]+$`)
	commitRE = regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`)
)

// PlanClassroom makes a step of every part of the levels, graded with the
// harness of repo (owner/name) at commit ref.
func PlanClassroom(root, repo, ref string, lvs []levels.Level) (classroomPlan, error) {
	if !repoRE.MatchString(repo) {
		return classroomPlan{}, fmt.Errorf("the instructor's repository is %q; name it as owner/name", repo)
	}
	if !commitRE.MatchString(ref) {
		return classroomPlan{}, fmt.Errorf("the instructor's commit is %q; pin a commit's full hash, which no push can move", ref)
	}
	plan := classroomPlan{Repo: repo, Ref: ref}
	for _, l := range lvs {
		for _, p := range l.Parts {
			needs, err := moduleNeeds(root, l, l.ModuleOf(p.Number))
			if err != nil {
				return classroomPlan{}, err
			}
			for _, n := range needs {
				if n != "redis-server" {
					return classroomPlan{}, fmt.Errorf("level %d, part %d needs %q, which the workflow cannot provide", l.Number, p.Number, n)
				}
				plan.Redis = true
			}
			plan.Steps = append(plan.Steps, gradedStep{PartID(l.Number, p.Number), fmt.Sprintf("Level %d, part %d: %s", l.Number, p.Number, p.Title)})
		}
	}
	return plan, nil
}

// WriteDoneParts writes the parts each result has done, one PartID a line.
func WriteDoneParts(w io.Writer, results []Result) {
	for _, r := range results {
		for _, l := range r.Levels {
			for _, p := range l.Parts {
				if p.Done {
					fmt.Fprintln(w, PartID(l.Number, p.Number))
				}
			}
		}
	}
}

// moduleNeeds lists what the cases of a module's spec need beyond Go
// ("redis-server").
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

// classroomYAML is the workflow, text to keep its comments and order.
//
//go:embed templates/classroom.yml
var classroomYAML string

// WriteClassroom writes the workflow of plan.
func WriteClassroom(w io.Writer, plan classroomPlan) error {
	t := template.Must(template.New("").Funcs(template.FuncMap{"q": strconv.Quote, "upper": strings.ToUpper}).Parse(classroomYAML))
	return t.Execute(w, map[string]any{"Plan": plan, "Points": grade.Plural(len(plan.Steps)*PartPoints, "point"), "PartPoints": PartPoints,
		"StudentDir": StudentDir, "InstructorDir": InstructorDir, "DonePartsFile": DonePartsFile, "GradeCommand": ClassroomGradeCommand})
}
