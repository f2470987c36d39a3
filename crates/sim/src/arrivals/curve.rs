//! A rate given as a curve in `t`, in postfix (model/curve.py's `Curve.postfix`,
//! docs/compiled-model.md): evaluated on a small stack, checked once to be
//! well formed so that evaluating it never fails.

use crate::model::CurveToken;

#[derive(Debug, Clone, Copy)]
enum Token {
    Number(f64),
    T,
    Unary(fn(f64) -> f64),
    Binary(fn(f64, f64) -> f64),
}

#[derive(Debug, Clone)]
pub struct Postfix {
    tokens: Vec<Token>,
    /// The deepest the stack gets: its room, allocated once per evaluation.
    depth: usize,
}

impl Postfix {
    pub fn new(tokens: &[CurveToken]) -> Result<Self, String> {
        let mut depth: usize = 0;
        let mut most = 0;
        let mut out = Vec::with_capacity(tokens.len());
        for token in tokens {
            let token = match token {
                CurveToken::Number(x) if x.is_finite() => Token::Number(*x),
                CurveToken::Number(x) => return Err(format!("a curve: {x} is not a finite number")),
                CurveToken::Word(word) => match word.as_str() {
                    "t" => Token::T,
                    "neg" => Token::Unary(|x| -x),
                    "sin" => Token::Unary(f64::sin),
                    "cos" => Token::Unary(f64::cos),
                    "exp" => Token::Unary(f64::exp),
                    "+" => Token::Binary(|a, b| a + b),
                    "-" => Token::Binary(|a, b| a - b),
                    "*" => Token::Binary(|a, b| a * b),
                    "/" => Token::Binary(|a, b| a / b),
                    "**" => Token::Binary(f64::powf),
                    "min" => Token::Binary(f64::min),
                    "max" => Token::Binary(f64::max),
                    other => return Err(format!("a curve: unknown word {other:?}")),
                },
            };
            let (takes, gives) = match token {
                Token::Number(_) | Token::T => (0, 1),
                Token::Unary(_) => (1, 1),
                Token::Binary(_) => (2, 1),
            };
            if depth < takes {
                return Err("a curve: an operation with too few values before it".into());
            }
            depth = depth - takes + gives;
            most = most.max(depth);
            out.push(token);
        }
        if depth != 1 {
            return Err("a curve must leave exactly one value".into());
        }
        Ok(Postfix { tokens: out, depth: most })
    }

    /// The curve at `t`.
    pub fn at(&self, t: f64) -> f64 {
        let mut stack = Vec::with_capacity(self.depth);
        for token in &self.tokens {
            let value = match *token {
                Token::Number(x) => x,
                Token::T => t,
                Token::Unary(f) => {
                    let x = stack.pop().expect("checked in new");
                    f(x)
                }
                Token::Binary(f) => {
                    let b = stack.pop().expect("checked in new");
                    let a = stack.pop().expect("checked in new");
                    f(a, b)
                }
            };
            stack.push(value);
        }
        stack[0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<CurveToken> {
        text.split(' ')
            .map(|w| w.parse::<f64>().map(CurveToken::Number).unwrap_or_else(|_| CurveToken::Word(w.into())))
            .collect()
    }

    #[test]
    fn evaluates_as_written() {
        // 100 + 60 sin(2 pi t / 1440) at t = 360: 160.
        let curve = Postfix::new(&words("100 60 2 3.141592653589793 * t * 1440 / sin * +")).unwrap();
        assert!((curve.at(360.0) - 160.0).abs() < 1e-9);
        let curve = Postfix::new(&words("t neg 2 max 2 ** 1 0 exp min -")).unwrap();
        assert_eq!(curve.at(3.0), 3.0);
    }

    #[test]
    fn a_malformed_curve_is_refused() {
        assert!(Postfix::new(&words("1 +")).is_err());
        assert!(Postfix::new(&words("1 2")).is_err());
        assert!(Postfix::new(&words("t log")).is_err());
    }
}
