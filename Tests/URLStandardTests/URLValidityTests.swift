// URLValidityTests.swift — whether a URL parses under the WHATWG URL Standard. Every expectation
// is WebKitGTK 2.50.6's answer for the URL as a redirect action's `url` (accepted, or rejected with
// "A redirect url must be valid"), which is the question the rule-list parser asks.

import Testing
import URLStandard

@Suite struct URLValidityTests {
    @Test(arguments: [(String, Bool)]([
        ("https://127..1/", false),
        ("https://127.0.0.1/", true),
        ("https://1.2.3.4.5/", false),
        ("https://a.1/", false),
        ("https://a.0x1/", false),
        ("https://a.09/", false),
        ("https://0x100000000/", false),
        ("https://4294967295/", true),
        ("https://4294967296/", false),
        ("https://[::1]/", true),
        ("https://[::1/", false),
        ("https://[1:2:3:4:5:6:7:8:9]/", false),
        ("https://a b/", false),
        ("https://a%20b/", false),
        ("https:///", false),
        ("https://", false),
        ("https://:80/", false),
        ("https://a:99999/", false),
        ("https://a:8x/", false),
        ("foo://a b/", false),
        ("foo://a%20b/", true),
        ("foo:a b", true),
        ("https://xn--a/", false),
        ("https://ü.com/", true),
        ("https://a..b/", true),
        ("https://a.b./", true),
        ("https://127.1./", true),
        ("https://127.0.0.1../", true),
        ("file:///x", true),
        ("file://a b/x", false),
        ("https://a^b/", false),
        ("https://a|b/", false),
        ("https://u@/", false),
        ("https://u@h/", true),
        ("https://%41.com/", true),
        ("https://%zz.com/", false),
        ("https://a%2Fb/", false),
        ("https://09.1/", false),
        ("https://08/", false),
        ("https://0x/", true),
        ("https://a.0x/", false),
        (" https://a/", true),
        ("https://a\\tb/", true),
        ("https://a<b/", false),
        ("https://a*b/", true),
        ("https://a_b/", true),
        ("https://a~b/", true),
        ("https://xn--zz/", false),
        ("http://[1::2::3]/", false),
        ("http://[::1.2.3.4]/", true),
        ("http://[::1.2.3]/", false),
        ("http://[v1.x]/", false),
        ("foo://[v1.x]/", false),
        ("foo://a:99999/", false),
        ("http://[::]/", true),
        ("http://[1:2:3:4:5:6:7:8]/", true),
        ("http://[1:2:3:4:5:6:7]/", false),
        ("http://[::1:2:3:4:5:6:7:8]/", false),
        ("http://[1:2:3:4:5:6:1.2.3.4]/", true),
        ("http://[::01.2.3.4]/", false),
        ("http://[::1.2.3.4.5]/", false),
        ("http://[:1]/", false),
        ("http://[1:]/", false),
        ("foo:///x", true),
        ("foo://u@/x", false),
        ("foo://:1/x", false),
        ("https://a:/", true),
        ("https://a:65535/", true),
        ("https://a:65536/", false),
        ("https://0177.0.0.1/", true),
        ("https://0x7f.1/", true),
        ("https://256.0.0.0/", false),
        ("https://1.256/", true),
        ("https://1.65536/", true),
        ("https://1.2.65536/", false),
        ("https://1.2.3.256/", false),
        ("javascript:alert(1)", true),
        ("http://a%00b/", false),
        ("https://ab%/", false),
        ("ws://[::1]:80/", true),
        ("file://C:/x", true),
        ("file://c|/x", true),
        ("file://[::1/x", false),
        ("file://localhost/x", true)
    ]))
    func webKitAgrees(url: String, valid: Bool) {
        #expect(URLValidity.isValid(url) == valid, "\(url)")
    }

    @Test func ipv4EndsInANumber() {
        #expect(IPv4.endsInANumber(Array("a.1".utf8)))
        #expect(IPv4.endsInANumber(Array("a.0x".utf8)))
        #expect(IPv4.endsInANumber(Array("1.2.".utf8)))
        #expect(!IPv4.endsInANumber(Array("1.2..".utf8)))
        #expect(!IPv4.endsInANumber(Array("1.a".utf8)))
        #expect(!IPv4.endsInANumber(Array(".".utf8)))
    }
}
