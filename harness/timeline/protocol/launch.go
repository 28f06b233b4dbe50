package protocol

import "os/exec"

// LaunchEnv names the environment variable that tells the class report's
// checker how to start the student's child: a Launch, as JSON. The report
// sets it to the command its sandbox makes, so that the child runs in the
// student's sandbox while the checker runs outside it (package
// harness/remote reads it).
const LaunchEnv = "LADDER_REMOTE_CHILD"

// Launch is how to start a child process.
type Launch struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
}

// LaunchOf is the Launch of a command made but not started.
func LaunchOf(cmd *exec.Cmd) Launch {
	return Launch{Path: cmd.Path, Args: cmd.Args, Env: cmd.Env, Dir: cmd.Dir}
}
