/// Message and approval ids reserved from the store (`GatewayStore.reserveIds`). PostgreSQL's version 9 creates the
/// sequences they come from; SQLite's single writer keeps the counter in the store (started from the highest id in
/// the file), so its version 9 changes nothing and only keeps the two engines' numbers the same.
enum SchemaV9 {
    static let version = 9
    static let sql = ""
}
