package dev.mailroom.web;

import dev.pginbox.inbox.http.HtmlText;

/** The small HTML pages of the verification server: one layout, escaped values. */
final class VerificationPages {

  private VerificationPages() {}

  static String page(String title, String bodyHtml) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>"
        + HtmlText.escape(title)
        + "</title>"
        + PageSecurity.styleElement()
        + "</head><body><h1>"
        + HtmlText.escape(title)
        + "</h1>\n"
        + bodyHtml
        + "\n</body></html>\n";
  }

  static String activationForm(String token) {
    return "<p>Press the button to activate your account.</p>"
        + "<form method=\"post\" action=\"/activate\">"
        + "<input type=\"hidden\" name=\"token\" value=\""
        + HtmlText.escape(token)
        + "\"><button type=\"submit\">Activate my account</button></form>";
  }

  static String recoveryForm(String token) {
    return "<form method=\"post\" action=\"/recover\">"
        + "<input type=\"hidden\" name=\"token\" value=\""
        + HtmlText.escape(token)
        + "\"><label>Code from the email: <input name=\"code\" inputmode=\"numeric\""
        + " pattern=\"[0-9]{5}\" maxlength=\"5\" required autofocus></label> "
        + "<button type=\"submit\">Recover</button></form>";
  }
}
