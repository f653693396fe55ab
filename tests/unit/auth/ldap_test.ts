import { assertEquals } from "../../support/assert.ts";
import { bindDn, escapeDnValue, escapeFilterValue } from "../../../auth/ldap.ts";

Deno.test("ldap: the DN an email binds as, as Convos builds it", () => {
  const convos = "uid=%uid,dc=%domain,dc=%tld";
  assertEquals(bindDn(convos, "ann@example.com"), "uid=ann,dc=example,dc=com");
  // The last label is the tld; the rest of the host stays one value, as in Convos.
  assertEquals(bindDn(convos, "ann@mail.example.com"), "uid=ann,dc=mail.example,dc=com");
  assertEquals(bindDn(convos, "ann@localhost"), "uid=ann,dc=localhost,dc=");
  assertEquals(
    bindDn("mail=%email,ou=people,dc=example,dc=com", "ann@example.com"),
    "mail=ann@example.com,ou=people,dc=example,dc=com",
  );
});

Deno.test("ldap: an email cannot name another entry", () => {
  // Each would otherwise end the uid and add a component of its own.
  assertEquals(
    bindDn("uid=%uid,dc=example,dc=com", "x,ou=admins@example.com"),
    "uid=x\\,ou\\=admins,dc=example,dc=com",
  );
  assertEquals(escapeDnValue('a+b"c\\d<e>f;g'), 'a\\+b\\"c\\\\d\\<e\\>f\\;g');
  assertEquals(escapeDnValue("#root"), "\\#root");
  assertEquals(escapeDnValue(" ann "), "\\ ann\\ ");
  assertEquals(escapeDnValue("a\0b"), "a\\00b");
  // One space is both the first and the last: escaped once.
  assertEquals(escapeDnValue(" "), "\\ ");
  assertEquals(escapeDnValue("a\\ "), "a\\\\\\ ");
});

Deno.test("ldap: an email cannot widen the search's filter", () => {
  assertEquals(escapeFilterValue("*@example.com"), "\\2a@example.com");
  assertEquals(escapeFilterValue("a)(uid=*"), "a\\29\\28uid=\\2a");
  assertEquals(escapeFilterValue("a\\b\0"), "a\\5cb\\00");
});
