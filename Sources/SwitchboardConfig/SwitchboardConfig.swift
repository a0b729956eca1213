// Placeholder until the SwitchboardConfig module lands.
