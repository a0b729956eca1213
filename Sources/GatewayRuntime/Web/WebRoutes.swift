import HTTP1
import Server

/// The gateway's web files in front of the JSON API: the JavaScript client at `GET /v1/client.js` and its TypeScript
/// declarations at `GET /v1/client.d.ts` (always), and when the demo is enabled the page at `/demo` and its endpoints
/// under `/demo/api/`. Everything else goes to `next`.
final class WebRoutes: HTTPApplication, Sendable {
    static let clientPath = "/v1/client.js"
    static let declarationsPath = "/v1/client.d.ts"
    static let demoPath = "/demo"

    static let client = StaticAsset(WebAssets.clientJS, contentType: "text/javascript; charset=utf-8",
                                    extraHeaders: [("Access-Control-Allow-Origin", "*")])
    /// Same CORS as the module: tools of a page on another origin fetch the declarations beside it.
    static let declarations = StaticAsset(WebAssets.clientDTS, contentType: "application/typescript; charset=utf-8",
                                          extraHeaders: [("Access-Control-Allow-Origin", "*")])
    /// The files served whether or not the demo is on.
    static let files = [clientPath: client, declarationsPath: declarations]
    static let demoPage = StaticAsset(WebAssets.demoHTML, contentType: "text/html; charset=utf-8")

    private let next: HTTPApplication
    private let demo: DemoAPI?

    init(next: HTTPApplication, demo: DemoAPI?) {
        self.next = next
        self.demo = demo
    }

    func handle(_ request: HTTPRequest, respond: @escaping @Sendable (HTTPResponse) -> Void) -> Bool {
        let head = request.head
        if let file = Self.files[head.path] {
            respond(file.response(to: head))
            return true
        }
        if let demo {
            if head.path == Self.demoPath || head.path == Self.demoPath + "/" {
                respond(Self.demoPage.response(to: head))
                return true
            }
            if head.path.hasPrefix(DemoAPI.prefix) { return demo.handle(request, respond: respond) }
        }
        return next.handle(request, respond: respond)
    }

    /// The static files take no body; the demo's endpoints refuse a caller without a device token before its body.
    func verdict(onHead head: HTTPRequestHead) -> HTTPHeadVerdict {
        if Self.files[head.path] != nil { return .readBody }
        if let demo {
            if head.path == Self.demoPath || head.path == Self.demoPath + "/" { return .readBody }
            if head.path.hasPrefix(DemoAPI.prefix) { return demo.verdict(onHead: head) }
        }
        return next.verdict(onHead: head)
    }
}
