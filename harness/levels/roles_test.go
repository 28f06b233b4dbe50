package levels

import "testing"

func TestRoleOfTellsEachKindOfFile(t *testing.T) {
	for _, tc := range []struct {
		path  string
		level int
		role  Role
	}{
		{"ladder/01-hit-counter/counter.go", 1, Code},
		{"ladder/01-hit-counter/mine/helper.go", 1, Code}, // a package of the learner's own
		{"ladder/08-group-throttle/limits/limits.go", 8, Code},
		{"ladder/01-hit-counter/counter_test.go", 1, Test},
		{"ladder/01-hit-counter/spec/spec.go", 1, Spec},
		{"ladder/01-hit-counter/spec/mutants_test.go", 1, Spec},
		{"ladder/01-hit-counter/spec/testdata/fuzz/FuzzHitCounter/1", 1, Spec},
		{"ladder/01-hit-counter/spec", 1, Spec}, // the folder itself
		{"ladder/08-group-throttle/redisthrottle/spec/spec.go", 8, Spec},
		{"ladder/08-group-throttle/redisthrottle/spec", 8, Spec},
		{"ladder/01-hit-counter/testdata/answer.go", 1, Testdata}, // never built: not code
		{"ladder/01-hit-counter/testdata/fuzz/FuzzX/1", 1, Testdata},
		{"ladder/01-hit-counter/README.md", 1, Doc},
		{"ladder/01-hit-counter/HINTS.md", 1, Doc},
		{"ladder/08-group-throttle/redisthrottle/go.mod", 8, ModuleFile},
		{"ladder/08-group-throttle/redisthrottle/go.sum", 8, ModuleFile},
		{"ladder/08-group-throttle/redisthrottle/script.lua", 8, OtherFile},
		{"ladder/08-group-throttle/limits", 8, OtherFile}, // a package folder
		{"solutions/01-hit-counter/counter.go", 1, Reference},
		{"solutions/01-hit-counter/counter_test.go", 1, Reference},
		{"solutions/peers/go.mod", 0, Outside},
		{"harness/timeline/play.go", 0, Harness},
		{"harness/cmd/ladder/testdata/answers/01-working-counter_test.go", 0, Harness},
		{"go.mod", 0, Outside},
		{"ladder/01-hit-counter-extra/x.go", 0, Outside}, // a folder whose name starts with a level's
		{"ladder/stray.go", 0, Outside},
		{"testdata/scenarios/learner-session/logger.go", 0, Outside},
	} {
		level, role := RoleOf(tc.path)
		if level != tc.level || role != tc.role {
			t.Errorf("RoleOf(%q) = %d, %v; want %d, %v", tc.path, level, role, tc.level, tc.role)
		}
	}
}

func TestHasRoleIsTheLevelsOwnRole(t *testing.T) {
	l1, l2 := All[0], All[1]
	p := l1.Dir + "/counter.go"
	if !l1.HasRole(p, Code) {
		t.Errorf("level 1 HasRole(%q, Code) = false, want true", p)
	}
	if l1.HasRole(p, Test) {
		t.Errorf("level 1 HasRole(%q, Test) = true, want false", p)
	}
	if l2.HasRole(p, Code) {
		t.Errorf("level 2 HasRole(%q, Code) = true, want false: it is level 1's", p)
	}
}
