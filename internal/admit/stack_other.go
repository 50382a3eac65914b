//go:build !linux

package admit

// LoopsUnder finds no loop devices: only Linux has them (a macOS disk
// image or a Windows VHD is not looked through).
func LoopsUnder(string) ([]StackLoop, error) { return nil, nil }
