import CLinux
// Placeholder until the EventLoop module lands.
