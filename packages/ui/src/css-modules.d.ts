// CSS Modules of this package's components; the app's bundler (Next.js) provides the classes.
declare module "*.module.css" {
  const classes: Readonly<Record<string, string>>;
  export default classes;
}
