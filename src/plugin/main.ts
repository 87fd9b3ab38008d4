export default class X {}
