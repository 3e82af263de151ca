/* global SwaggerUIBundle */
// Starts Swagger UI on the API reference page. A served file, not an inline script: the page's CSP allows
// scripts from this origin only. The document is fetched from the URL the page names (its own origin).
(function () {
  'use strict';
  window.ui = SwaggerUIBundle({
    url: document.body.getAttribute('data-openapi-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    // The base layout: no top bar (its logo is an inline <style>, which the CSP refuses; its box loads other documents).
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
    // The validator badge would load an image from validator.swagger.io (and send it the document's URL).
    validatorUrl: null,
  });
})();
