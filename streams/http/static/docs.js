// The API reference: Swagger UI (vendored, static/vendor/swagger-ui, Apache-2.0) over /openapi.json.
// Nothing is fetched from outside: no validator badge, no CDN.
window.addEventListener("DOMContentLoaded", () => {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#api",
    validatorUrl: null,
    deepLinking: true,
    tryItOutEnabled: false,
    persistAuthorization: false,
  });
});
