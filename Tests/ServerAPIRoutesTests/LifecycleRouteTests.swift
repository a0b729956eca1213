import HTTP1
import Testing
@testable import ServerAPIRoutes

/// The account and device lifecycle routes: a backend's (any user) and a device's own (`/v1/users/me…`).
@Suite struct LifecycleRouteTests {
    @Test(arguments: [
        ("DELETE", "/v1/users/alice", APIRequest.deleteUser(userId: "alice")),
        ("DELETE", "/v1/users/alice/devices/phone", .revokeDevice(APIDeviceRef(userId: "alice", deviceId: "phone"))),
        (
            "DELETE", "/v1/users/o%27neil/devices/ph%3Aone",
            .revokeDevice(APIDeviceRef(userId: "o'neil", deviceId: "ph:one"))
        ),
        ("DELETE", "/v1/users/me", .deleteOwnUser),
        ("DELETE", "/v1/users/me/devices/phone", .revokeOwnDevice(deviceId: "phone"))
    ])
    func eachRouteCarriesItsIds(_ method: String, _ target: String, _ expected: APIRequest) throws {
        #expect(try typed(method, target).get() == expected)
    }

    @Test func theOwnRoutesAreADevicesAndTheOthersABackends() {
        func caller(_ method: String, _ target: String) -> APICaller? {
            if case .route(let route) = APIRoutes.match(
                HTTPRequestHead(method: method, target: target), standalone: false)
            {
                return route.caller
            }
            return nil
        }
        #expect(caller("DELETE", "/v1/users/me") == .device)
        #expect(caller("DELETE", "/v1/users/me/devices/phone") == .device)
        #expect(caller("DELETE", "/v1/users/alice") == .backend)
        #expect(caller("DELETE", "/v1/users/alice/devices/phone") == .backend)
    }

    /// Another method on a device's own resource is 405 naming DELETE, for anyone (no token is needed to learn it).
    @Test(arguments: ["GET", "POST", "PUT", "PATCH"])
    func anotherMethodOnTheOwnRoutesIs405(_ method: String) {
        for target in ["/v1/users/me", "/v1/users/me/devices/phone"] {
            guard
                case .refused(let refusal) = APIRoutes.match(
                    HTTPRequestHead(method: method, target: target), standalone: false)
            else {
                Issue.record("\(method) \(target) was not refused"); continue
            }
            #expect(refusal.status == 405 && refusal.headers["Allow"] == "DELETE")
        }
    }

    @Test func malformedDeviceIdsAndDeeperPathsAreRefused() {
        #expect(refusal("DELETE", "/v1/users/me/devices/a%20b")?.code == "invalid_id")
        #expect(refusal("DELETE", "/v1/users/alice/devices/%zz")?.code == "invalid_path")
        #expect(refusal("DELETE", "/v1/users/me/devices")?.status == 404)
        #expect(refusal("DELETE", "/v1/users/me/devices/phone/extra")?.status == 404)
        #expect(refusal("DELETE", "/v1/users/alice/devices")?.status == 404)
    }
}
