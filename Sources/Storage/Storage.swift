import CSQLite
import Gateway
// Placeholder until the SQLite adapter lands.
