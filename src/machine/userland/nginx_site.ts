/**
 * nginx's default site as Debian 12 installs it (nginx-common 1.22.1-9): the page fstree.ts puts in
 * /var/www/html and programs/nginx.ts serves, apart from the program so that the boot need not load it.
 */
/** Debian's /var/www/html/index.nginx-debian.html (nginx-common 1.22.1-9, 615 bytes) */
export const NGINX_WELCOME = '<!DOCTYPE html>\n<html>\n<head>\n<title>Welcome to nginx!</title>\n<style>\n'
  + 'html { color-scheme: light dark; }\nbody { width: 35em; margin: 0 auto;\n'
  + 'font-family: Tahoma, Verdana, Arial, sans-serif; }\n</style>\n</head>\n<body>\n<h1>Welcome to nginx!</h1>\n'
  + '<p>If you see this page, the nginx web server is successfully installed and\n'
  + 'working. Further configuration is required.</p>\n\n<p>For online documentation and support please refer to\n'
  + '<a href="http://nginx.org/">nginx.org</a>.<br/>\nCommercial support is available at\n'
  + '<a href="http://nginx.com/">nginx.com</a>.</p>\n\n<p><em>Thank you for using nginx.</em></p>\n</body>\n</html>\n';
