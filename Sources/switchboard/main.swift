print("switchboard: not yet implemented")
