/**
 * Uploads that could run in the browser are served so that they cannot (sandboxed attachments,
 * octet-stream downloads), and the page runs only the bundle's scripts.
 * In process, through `app.request()`.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startApp } from "../support/app.ts";

Deno.test("upload serving: uploads that could run are served so that they cannot", async (t) => {
  const a = await startApp();
  const open = await startApp({ PARLEY_LISTEN: "http://0.0.0.0:3000" });
  try {
    const cookie = await a.register("admin@example.com");
    const upload = async (name: string, type: string) => {
      const form = new FormData();
      form.set("file", new File(["alert(document.cookie)"], name, { type }));
      const res = await a.request("/api/files", {
        method: "POST",
        body: form,
        headers: { cookie },
      });
      assertEquals(res.status, 200, name);
      // The public URL (/file/...) redirects to the API's; followed as a browser does.
      const link = await a.request(new URL(res.body.files[0].url).pathname);
      assertEquals(link.status, 302, name);
      return await a.request(link.headers.get("location")!);
    };
    await t.step("HTML, XHTML and SVG are sandboxed attachments of their own type", async () => {
      // Their own type as Convos sends them (web-files.t:105-129). As attachments they are not
      // shown; under sandbox nothing of them runs in this origin should a browser show them;
      // under nosniff no <script src> or stylesheet link loads them (only JS and CSS types may).
      for (
        const [name, type] of [
          ["x.html", "text/html"],
          ["x.xhtml", "application/xhtml+xml"],
          ["x.svg", "image/svg+xml"],
        ]
      ) {
        const res = await upload(name, type);
        assertEquals(res.headers.get("content-type")!.split(";")[0], type, name);
        assertEquals(res.headers.get("x-content-type-options"), "nosniff", name);
        assertEquals(res.headers.get("content-security-policy"), "sandbox", name);
        assert(res.headers.get("content-disposition")!.startsWith("attachment;"), name);
      }
    });
    await t.step("scripts, CSS and XML are octet-stream downloads", async () => {
      for (
        const [name, type] of [
          ["x.js", "text/javascript"],
          ["x.mjs", "application/javascript"],
          ["x.css", "text/css"],
          ["x.xml", "application/xml"],
          ["x.xsl", "text/xsl"],
          ["x.bin", "application/x-unknown"],
        ]
      ) {
        const res = await upload(name, type);
        assertEquals(res.headers.get("content-type"), "application/octet-stream", name);
        assertEquals(res.headers.get("x-content-type-options"), "nosniff", name);
        assert(res.headers.get("content-disposition")!.startsWith("attachment;"), name);
      }
    });
    await t.step("PDFs are attachments; text and pictures stay inline", async () => {
      const pdf = await upload("x.pdf", "application/pdf");
      assertEquals(pdf.headers.get("content-type"), "application/pdf");
      assert(pdf.headers.get("content-disposition")!.startsWith("attachment;"));
      const txt = await upload("x.txt", "text/plain");
      // Inline as Convos serves them: no disposition (web-files.t:88).
      assertEquals(txt.headers.get("content-type"), "text/plain;charset=UTF-8");
      assertEquals(txt.headers.get("content-disposition"), null);
      const png = await upload("x.png", "image/png");
      assertEquals(png.headers.get("content-type"), "image/png");
      assertEquals(png.headers.get("content-disposition"), null);
    });
    await t.step("the page may run the bundle only, not any script of its origin", async () => {
      const page = await a.request("/chat", { headers: { host: "parley.localhost:8443" } });
      const csp = page.headers.get("content-security-policy")!;
      const scriptSrc = csp.split("; ").find((d) => d.startsWith("script-src"));
      assertEquals(scriptSrc, "script-src http://parley.localhost:8443/dist/");
      // On loopback a Host that is no host is refused outright (http/host.ts); on a listener
      // that takes any name, it does not reach the page's policy.
      const refused = await a.request("/", { headers: { host: "x; script-src *" } });
      assertEquals(refused.status, 403);
      const forged = await open.request("/", { headers: { host: "x; script-src *" } });
      assertEquals(forged.status, 200);
      const forgedSrc = forged.headers.get("content-security-policy")!.split("; ")
        .find((d) => d.startsWith("script-src"));
      assertEquals(forgedSrc, "script-src http://0.0.0.0:3000/dist/");
    });
  } finally {
    await a.close();
    await open.close();
  }
});
