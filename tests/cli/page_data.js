// page_data.js: the data block of a page `tare cg page` or `tare alloc page` wrote, parsed
// (the tests read the page's own numbers: require(...)(FILE)).
"use strict";
module.exports = (file) => {
  const h = require("fs").readFileSync(file, "utf8");
  const a = h.indexOf("id=\"cg-data\">") + 13;
  return JSON.parse(h.slice(a, h.indexOf("</script>", a)));
};
