package procgroup

import (
	"bufio"
	"os"
	"os/exec"
	"testing"
	"time"
)

// A grandchild's CPU time counts while it runs: the class report's
// child runs two levels below the checker, under bwrap.
func TestTreeCountsAGrandchildsCPU(t *testing.T) {
	const loop = `i=0; while [ $i -lt 200000 ]; do i=$((i+1)); done; echo done; exec sleep 600`
	cmd := exec.Command("sh", "-c", "sh -c '"+loop+"' & wait")
	Own(cmd)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { Kill(cmd.Process); cmd.Wait() }()
	if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "done\n" {
		t.Fatalf("the child printed %q, want done", line)
	}
	tree := NewTree(cmd.Process.Pid)
	if len(tree) < 2 {
		t.Fatalf("NewTree(child) = %v, want the child and its own child", tree)
	}
	_, own := readStat(cmd.Process.Pid)
	got, ok := tree.CPU()
	if !ok || got < 20*time.Millisecond || got <= own {
		t.Errorf("CPU() = %v, %v; want the grandchild's loop counted (the child alone used %v)", got, ok, own)
	}
}

func TestSelfCPUGrowsWithWork(t *testing.T) {
	before, ok := SelfCPU()
	if !ok {
		t.Fatal("SelfCPU() = false on Linux")
	}
	x := uint64(1)
	for after := before; after-before < 20*time.Millisecond; after, _ = SelfCPU() {
		for range 100000 {
			x = x*6364136223846793005 + 1
		}
	}
	_ = x
}

func TestReadStatCountsFromTheLastParenthesis(t *testing.T) {
	if ppid, cpu := readStat(-1); ppid != 0 || cpu != 0 {
		t.Errorf("readStat(-1) = %d, %v; want nothing", ppid, cpu)
	}
	if ppid, _ := readStat(os.Getpid()); ppid != os.Getppid() {
		t.Errorf("readStat(this process) = %d, want its parent %d", ppid, os.Getppid())
	}
}
