package protocol

import "os/exec"

// LaunchEnv names the environment variable that tells the class report's
// checker how to start the student's child in the sandbox: a Launch, as JSON.
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
