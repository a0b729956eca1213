// Placeholder until the wire types land.
